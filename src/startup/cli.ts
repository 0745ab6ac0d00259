#!/usr/bin/env node
import { main } from '../cli/main.js';
import { installStartup } from './buildTables.js';

// (No top-level await: the bundle is built as CommonJS, for the code cache; see scripts/bundle.mjs.)
installStartup();
main();
