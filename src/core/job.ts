/** Background work a service runs while the app is up (dispatchers, sweepers, buffers). */
export interface Job {
  name: string;
  start(): void;
  /** Finishes or flushes in-flight work; called on shutdown. */
  stop(): Promise<void>;
}
