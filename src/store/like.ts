/** A LIKE pattern matching values that start with `prefix` literally (use with ESCAPE '\'). */
export const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
