import { Db } from '../../db/database.js';
import { StartupError } from '../../domain/errors.js';
import { legacyStore } from '../legacy/index.js';
import { normalizedStore } from '../normalized/index.js';
import { RALPH_USER_VERSION, generationLabel, inspectSchema, notRalphMessage, type SchemaInfo } from '../schema.js';
import type { RalphStore } from '../store.js';

/**
 * Opens Ralph's database, tells its generation by the tables present, and fails closed (exit 2, one line)
 * unless it is one we understand. The checks run before Db.open switches the file to WAL, which rewrites its
 * header, so a refused file is left byte for byte as it was.
 */
export function openStore(
  dbPath: string,
  options: { readonly?: boolean } = {},
): { store: RalphStore; schema: SchemaInfo } {
  let schema: SchemaInfo | undefined;
  let opened = false;
  try {
    const db = Db.open(dbPath, options, (probe) => {
      opened = true;
      schema = checkSchema(dbPath, probe);
    });
    return { store: storeFor(db, schema!), schema: schema! };
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError(`cannot ${opened ? 'read' : 'open'} database ${dbPath}: ${(err as Error).message}`);
  }
}

/** The implementation for a checked database's generation. */
export const storeFor = (db: Db, schema: SchemaInfo): RalphStore =>
  schema.generation === 'legacy' ? legacyStore(db) : normalizedStore(db);

function checkSchema(dbPath: string, db: Db): SchemaInfo {
  const info = inspectSchema(db);
  if (info.generation === null) throw new StartupError(notRalphMessage(dbPath, info));
  if (info.userVersion !== RALPH_USER_VERSION) {
    throw new StartupError(
      `${dbPath} has schema version ${info.userVersion}; this ralph-mcp understands version ${RALPH_USER_VERSION} (upgrade ralph-mcp, or open the project in a matching Ralph)`,
    );
  }
  if (info.drift.length > 0) {
    throw new StartupError(
      `${dbPath} does not have the columns of Ralph's ${generationLabel(info.generation)}, version ${RALPH_USER_VERSION}: ${info.drift.join('; ')}. It was left untouched; use a ralph-mcp that matches the Ralph that wrote it`,
    );
  }
  return info;
}
