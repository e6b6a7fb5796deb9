const DAY_MS = 86_400_000;

/** Certificates start a little in the past so clock skew between hosts does not reject them. */
const BACKDATE_MS = 5 * 60_000;

export function validityWindow(opts: {
  now?: Date;
  days: number;
  notAfter?: Date;
  /** Never valid beyond this (the issuer's own expiry). */
  limit?: Date;
}): { notBefore: Date; notAfter: Date } {
  const now = opts.now ?? new Date();
  if (!(opts.days > 0) && !opts.notAfter) throw new RangeError('days must be positive');
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  let notAfter = opts.notAfter ?? new Date(now.getTime() + opts.days * DAY_MS);
  if (opts.limit && notAfter > opts.limit) notAfter = opts.limit;
  return { notBefore, notAfter };
}

export { DAY_MS };
