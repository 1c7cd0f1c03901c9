#!/usr/bin/env node
import { main } from '../dist/src/cli/entry.js';

process.exitCode = await main(process.argv.slice(2));
