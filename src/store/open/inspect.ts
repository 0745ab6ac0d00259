/**
 * What `ralph-mcp doctor` reads of a database whatever its generation (or before it is known): that its
 * schema is readable, SQLite's version and integrity, and the version of our tables this build writes.
 */
export { integrityCheck, schemaReadable, sqliteVersion } from '../own/record.js';
export { OWN_SCHEMA_VERSION } from '../own/schema.js';
