/**
 * Statements over a table named by the file's own schema (a person's table, or a table of ours this
 * version does not know): the one place migrate puts such names into SQL text. Every name comes from
 * sqlite_master or pragma_table_xinfo and is quoted as an identifier; no value is ever spliced in.
 */

export interface TableShape {
  name: string;
  /** The columns a row is written with (generated ones are computed again). */
  columns: readonly string[];
  /** The name the hidden rowid is read by (null: WITHOUT ROWID, or every alias is a column's name). */
  rowid: string | null;
}

export interface TableSql {
  /** Rows of the table where it is `main` (the snapshot on its own, or the new file). */
  count: string;
  /** Copies every row, rowid included, from the attached snapshot (`legacy`) into the new file. */
  copy: string;
  /** One row when the two sides differ in any row, value or storage type. */
  differ: string;
  foreignKeys: { main: string; legacy: string };
  /** Reads nothing, but fails when a view no longer compiles. */
  readView: string;
}

export function tableSql(t: TableShape): TableSql {
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const table = quote(t.name);
  const written = [...(t.rowid ? [t.rowid] : []), ...t.columns.map(quote)];
  const plain = written.join(', ');
  const typed = written.map((c) => `${c}, typeof(${c})`).join(', ');
  const was = `SELECT ${typed} FROM legacy.${table}`;
  const now = `SELECT ${typed} FROM main.${table}`;
  return {
    count: `SELECT count(*) AS n FROM main.${table}`,
    copy: `INSERT INTO main.${table} (${plain}) SELECT ${plain} FROM legacy.${table}`,
    differ: `SELECT 1 AS x FROM (${was} EXCEPT ${now}) UNION ALL SELECT 1 FROM (${now} EXCEPT ${was})`,
    foreignKeys: {
      main: `PRAGMA main.foreign_key_check(${table})`,
      legacy: `PRAGMA legacy.foreign_key_check(${table})`,
    },
    readView: `SELECT * FROM main.${table} LIMIT 0`,
  };
}
