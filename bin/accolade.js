#!/usr/bin/env node
// Runs the compiled CLI; `npm run build` produces dist/ (npm start does it too).
import '../dist/src/cli.js';
