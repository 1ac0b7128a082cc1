/** The command line of the operator CLI: which command, with which options. Pure, so every usage error is one line. */
import { parseArgs } from 'node:util';

/** A problem the operator can fix; the CLI prints its message as one line on stderr and exits 1. */
export class CliError extends Error {
  override name = 'CliError';
}

/** Each command and its options: `true` marks a required one. */
export const COMMANDS = {
  migrate: {},
  'user:create': { email: true, name: true },
  'user:reset-password': { email: true },
  'token:create': { email: true, name: true, 'expires-in-days': false },
  'sandbox:reset': {},
} as const satisfies Record<string, Record<string, boolean>>;

export type CommandName = keyof typeof COMMANDS;

export type CommandLine = { command: 'help' } | { command: CommandName; options: Readonly<Record<string, string>> };

const KNOWN_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  email: { type: 'string' },
  name: { type: 'string' },
  'expires-in-days': { type: 'string' },
} as const;

/** Reads `<command> [--option value]…`; `help`, `--help`, `-h` or nothing at all asks for the usage text. */
export function parseCommandLine(args: readonly string[]): CommandLine {
  const { tokens } = parseArgs({ args: [...args], options: KNOWN_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help')) return { command: 'help' };
  const [first, ...extra] = tokens.filter((token) => token.kind === 'positional').map((token) => token.value);
  if (first === undefined || first === 'help') return { command: 'help' };
  if (!Object.hasOwn(COMMANDS, first))
    throw new CliError(`storelink: unknown command "${first}". Run "storelink --help" for the commands.`);
  const command = first as CommandName;
  const options = readOptions(command, tokens);
  if (extra.length > 0) throw new CliError(`storelink ${command}: unexpected argument "${extra[0]}". Run "storelink --help" for usage.`);
  return { command, options };
}

type Token = ReturnType<typeof parseArgs>['tokens'] extends (infer T)[] | undefined ? T : never;

function readOptions(command: CommandName, tokens: readonly Token[]): Record<string, string> {
  const allowed: Record<string, boolean> = COMMANDS[command];
  const options: Record<string, string> = {};
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = `--${token.name}`;
    if (!Object.hasOwn(allowed, token.name))
      throw new CliError(`storelink ${command}: unknown option ${token.rawName}. Run "storelink --help" for usage.`);
    // Without strict parsing, `--email --name x` would read "--name" as the email: treat it as a missing value instead.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))
      throw new CliError(`storelink ${command}: ${flag} needs a value.`);
    if (Object.hasOwn(options, token.name)) throw new CliError(`storelink ${command}: ${flag} is given more than once.`);
    options[token.name] = token.value;
  }
  const missing = Object.keys(allowed).filter((name) => allowed[name] && !Object.hasOwn(options, name));
  if (missing.length > 0)
    throw new CliError(
      `storelink ${command}: missing ${missing.map((name) => `--${name}`).join(' and ')}. Run "storelink --help" for usage.`,
    );
  return options;
}
