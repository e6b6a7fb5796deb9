/** A field of an event's `data` as a string: '' when absent or of another type. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
