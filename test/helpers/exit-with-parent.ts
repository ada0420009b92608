/**
 * An `--import` for the processes tests and benchmarks start (replicas, scripts): their stdin is a
 * pipe from the parent, so when the parent goes (even killed) the pipe ends and so does the child.
 * No child outlives the run that started it. A data: URL, so it needs no file and no TypeScript.
 */
export const EXIT_WITH_PARENT = `data:text/javascript,${encodeURIComponent(
  "process.stdin.on('end',()=>process.exit(0));process.stdin.on('error',()=>process.exit(0));process.stdin.resume();",
)}`;
