/**
 * Reading JSON that an agent wrote, which may not have the shape its
 * protocol promises: every accessor answers with a harmless default instead
 * of throwing, so a field of the wrong type reads as absent.
 */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export function isRecord(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value as an object; `{}` when it is not one. */
export function obj(v: unknown): JsonObject {
  return isRecord(v) ? v : {};
}

/** The value as a string; `''` when it is not one. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
