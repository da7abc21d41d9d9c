import sonicBoomExport, { type SonicBoom as SonicBoomClass } from 'sonic-boom';

// A CommonJS module whose module.exports is the class; its types declare an ES module around it.
const SonicBoom = sonicBoomExport as unknown as typeof SonicBoomClass;

/**
 * Where the server's log lines go: stdout, written asynchronously as pino's default destination
 * does, but without pino's synchronous flush at exit. That flush retries a failed write every
 * 100 ms for as long as it fails, on the event loop: with stdout closed (EPIPE) or full and unread
 * (EAGAIN), a server told to stop spun there for minutes and no signal could reach it. Here the
 * shutdown ends the log itself, waiting at most a bound (`endWithin`), and a closed stdout stops
 * the logging instead of the service.
 */
export function logDestination(fd = 1) {
  const stream = new SonicBoom({ fd, sync: false });
  let closed = false;
  let ended = false;
  let onClosed = () => {};
  stream.on('error', (err: NodeJS.ErrnoException) => {
    // Nobody is reading any more (as pino's own destination does): drop the lines from now on.
    if (err.code === 'EPIPE') {
      stream.write = () => true;
      closed = true;
      onClosed();
      return;
    }
    throw err;
  });
  return {
    stream,
    /** Writes what is buffered, giving up after `ms`: resolves either way, never rejects. */
    endWithin(ms: number): Promise<void> {
      return new Promise((resolve) => {
        if (closed) return resolve();
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, ms);
        onClosed = done;
        stream.once('close', done);
        if (!ended) {
          ended = true;
          stream.end();
        }
      });
    },
  };
}

export type LogDestination = ReturnType<typeof logDestination>;
