// Makes tsc's CLI executable too (npm does this for the bundle on install; this is for a checkout).
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/src/startup/cli.js', import.meta.url), 0o755);
