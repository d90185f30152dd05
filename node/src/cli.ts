#!/usr/bin/env node
console.log("replicore: the CLI is being written");
