/**
 * Splits a byte stream into lines without ever holding more than `max` bytes of one line: a longer
 * line is dropped as it streams in (reported once), and reading resumes after its newline. While
 * `blocked()` says so, the unread rest of a chunk is held until `resume()`.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  /** The unread rest of a chunk, kept while `blocked()` says the connection has too much unanswered. */
  private held: Buffer | null = null;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly blocked: () => boolean = () => false,
    private readonly onHold: () => void = () => undefined,
  ) {}

  get holding(): boolean {
    return this.held !== null;
  }

  push(chunk: Buffer): void {
    // A chunk already on its way when reading was paused: keep it behind the held rest (one chunk at most).
    if (this.held !== null) this.held = Buffer.concat([this.held, chunk]);
    else this.process(chunk);
  }

  /** Goes on with the held rest (call when no longer blocked). */
  resume(): void {
    const rest = this.held;
    if (rest === null) return;
    this.held = null;
    this.process(rest);
  }

  private process(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      if (this.blocked()) {
        this.held = chunk.subarray(start);
        this.onHold();
        return;
      }
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!this.skipping && this.size + piece.length > this.max) {
        this.skipping = true;
        this.onTooLong(this.size + piece.length);
        this.parts = [];
        this.size = 0;
      } else if (!this.skipping && piece.length > 0) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) return;
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
      this.parts = [];
      this.size = 0;
      this.onLine(line);
    }
  }
}
