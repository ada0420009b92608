/**
 * Loaded into replica processes the tests and benchmarks start (`--import`): their stdin is a
 * pipe from the parent, so when the parent goes (even killed) the pipe ends and so does the child.
 * No replica outlives the run that started it.
 */
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
