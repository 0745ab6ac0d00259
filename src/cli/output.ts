/**
 * The subcommands that are not `serve` (init, plan, config, tools, overrides, doctor) answer on stdout.
 * They never run while an MCP session is being served, so this is the one deliberate stdout writer.
 */
export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`); // stdout-ok: CLI output, not an MCP session
}
