/** What a row is compared with, measured in the same run unless it is a fixed target. */
export interface Reference {
  name: string;
  value: number;
  unit: string;
  /**
   * True when the measured thing cannot honestly beat it (a ceiling for a
   * rate, a floor for a time): a row that does anyway points at a wrong
   * reference, and the report says so.
   */
  ceiling: boolean;
}

/** One reported number. */
export interface Row {
  /** The catalogue's benchmark id (B1..B9) when the row is one of them. */
  id?: string;
  name: string;
  value: number;
  unit: string;
  /** Whether more (rates) or less (times, sizes) is better. */
  better: 'higher' | 'lower';
  ref?: Reference;
  /** value / ref.value. */
  ratio?: number;
  /** A bound the row should stay within (at most `max`, at least `min`), on its value or its ratio. */
  target?: { max?: number; min?: number; on: 'value' | 'ratio' };
  /** Why a row could not be measured as asked, or what it stands for. */
  note?: string;
}

/** A row measured against `ref`, with the ratio filled in. */
export function against(row: Omit<Row, 'ratio'> & { ref: Reference }): Row {
  return { ...row, ratio: row.ref.value > 0 ? row.value / row.ref.value : undefined };
}

/** Whether the row meets its target; undefined when it has none. */
export function targetMet(r: Row): boolean | undefined {
  if (!r.target) return undefined;
  const v = r.target.on === 'value' ? r.value : r.ratio;
  if (v === undefined) return false;
  return (
    (r.target.max === undefined || v <= r.target.max) &&
    (r.target.min === undefined || v >= r.target.min)
  );
}

/** True when the row beats a reference that is meant to be unbeatable. */
export function beatsCeiling(r: Row): boolean {
  if (!r.ref?.ceiling || r.ratio === undefined) return false;
  return r.better === 'higher' ? r.ratio > 1 : r.ratio < 1;
}

/** The median of a non-empty list. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The `q` quantile (0..1) of a non-empty list, nearest rank. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
