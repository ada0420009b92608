/**
 * Calls `onParentGone` once this process's parent has gone (it was re-parented: `process.ppid`
 * changed), looking every `everyMs`. `npm start` asks for it: npm killed with SIGKILL forwards no
 * signal, and the bot would otherwise go on serving with nobody to stop it. Never for a process a
 * supervisor starts directly (its parent stays) or one detached on purpose (`nohup`).
 */
export function exitWithParent(onParentGone: () => void, everyMs = 1_000): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onParentGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
