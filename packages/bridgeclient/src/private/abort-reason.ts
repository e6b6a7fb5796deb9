/** ": <the abort's reason>", or '' for a bare abort(). */
export function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (r instanceof Error && r.name === 'AbortError') return '';
  const text = r instanceof Error ? r.message : r === undefined ? '' : String(r);
  return text ? `: ${text}` : '';
}
