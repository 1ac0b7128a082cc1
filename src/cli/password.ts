/** Reads a password for user:create: the first line of piped input, or typed at a prompt without echo on a terminal. */
import { createInterface } from 'node:readline';
import { type Readable, Writable } from 'node:stream';

type Input = Readable & { isTTY?: boolean };

/** The password, its line ending removed; null when the input ends before any line (or the prompt is cancelled). */
export function readPassword(input: Input = process.stdin, prompt: NodeJS.WritableStream = process.stderr): Promise<string | null> {
  return input.isTTY ? promptHidden(input, prompt) : firstLine(input);
}

function firstLine(input: Readable): Promise<string | null> {
  const lines = createInterface({ input, terminal: false, crlfDelay: Infinity });
  return new Promise((resolve) => {
    let line: string | null = null;
    lines.once('line', (first) => {
      line = first;
      lines.close();
    });
    lines.once('close', () => {
      // The rest of the input is not ours to read; let go of it so the process can exit.
      input.destroy();
      resolve(line);
    });
  });
}

function promptHidden(input: Input, prompt: NodeJS.WritableStream): Promise<string | null> {
  // Readline echoes what is typed to its output: give it one that drops everything.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input, output: muted, terminal: true });
  prompt.write('Password: ');
  return new Promise((resolve) => {
    let line: string | null = null;
    lines.once('line', (typed) => {
      line = typed;
      lines.close();
    });
    // Ctrl-C in raw mode arrives here rather than as a signal.
    lines.once('SIGINT', () => lines.close());
    lines.once('close', () => {
      prompt.write('\n');
      input.pause();
      resolve(line);
    });
  });
}
