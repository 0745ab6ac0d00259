// Makes the built CLI executable (npm does this on install; this is for running from a checkout).
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/src/cli.js', import.meta.url), 0o755);
