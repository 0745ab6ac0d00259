/** A time as ISO 8601 UTC with milliseconds: fixed width, so such times compare as text. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
