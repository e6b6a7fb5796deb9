#!/usr/bin/env node
// The bin is a committed file so that installing links it before anything is
// built (pnpm links bins at install, when dist/ does not exist yet).
import '../dist/main.js';
