// `nodeherd completion bash|zsh`: a shell completion script generated from the commander program
// itself (commander has none built in), so a new command or option completes without editing a list.
//
// The script holds the command tree as `case` tables and one walker, __nodeherd_walk, written in the
// shell syntax bash and zsh share: it reads the words before the cursor and says which command they
// name and whether the last one is an option still waiting for its value. Each shell then offers
// subcommands, options, or an option's choices (files when it has none).

import { Command, InvalidArgumentError, type Option } from 'commander';

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/** One command of the tree, keyed by its path of command names joined with '/' ('' for the root). */
interface CommandEntry {
  path: string;
  subcommands: string[];
  options: string[];
  /** Options that take a value in the next word (not --flag=value). */
  valued: string[];
  /** Allowed values of an option, when commander knows them. */
  choices: Map<string, string[]>;
  /** What each positional argument names, when it is a pool or a node (the last repeats when variadic). */
  args: (NameKind | undefined)[];
  variadic: boolean;
  /** Options whose value is a pool's or a node's name. */
  named: Map<string, NameKind>;
}

/** Names completed from the cluster: the NodeConfigPools', the Nodes'. */
export type NameKind = 'pools' | 'nodes';

/** `<pool>`, `--pool <name>` name a pool; `<node>`, `--node`, or an argument "the Node" a node. */
function kindOf(name: string, description: string): NameKind | undefined {
  if (name === 'pool' || name === 'pools') return 'pools';
  if (name === 'node' || name === 'nodes' || /^the Nodes?\b/.test(description)) return 'nodes';
  return undefined;
}

function optionFlags(option: Option): string[] {
  return [option.short, option.long].filter((flag): flag is string => typeof flag === 'string');
}

function entries(command: Command, path: string, into: CommandEntry[]): CommandEntry[] {
  const visible = command.options.filter((option) => !option.hidden);
  const entry: CommandEntry = {
    path,
    subcommands: command.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]),
    options: [...visible.flatMap(optionFlags), '--help', '-h'],
    // A required value (<x>) takes the next word; an optional one ([x]) only with '='.
    valued: visible.filter((option) => option.required).flatMap(optionFlags),
    choices: new Map(
      visible.flatMap((option) =>
        option.argChoices ? optionFlags(option).map((flag) => [flag, option.argChoices!] as const) : [],
      ),
    ),
    args: command.registeredArguments.map((a) => kindOf(a.name(), a.description)),
    variadic: command.registeredArguments.at(-1)?.variadic === true,
    named: new Map(
      visible.flatMap((option) => {
        // --pool and --node take one name (`up --nodes <n>` is a count).
        const kind = option.long === '--pool' ? 'pools' : option.long === '--node' ? 'nodes' : undefined;
        return kind ? optionFlags(option).map((flag) => [flag, kind] as const) : [];
      }),
    ),
  };
  into.push(entry);
  for (const sub of command.commands) entries(sub, path === '' ? sub.name() : `${path}/${sub.name()}`, into);
  return into;
}

/** Words safe inside a double-quoted shell string: command names, flags, choices. */
function shellWords(words: readonly string[]): string {
  for (const word of words) {
    if (!/^[\w.:@%+,-]+$/.test(word)) throw new Error(`cannot complete ${JSON.stringify(word)}`);
  }
  return words.join(' ');
}

function caseTable(name: string, rows: Array<[string, readonly string[]]>): string {
  const arms = rows
    .filter(([, words]) => words.length > 0)
    .map(([key, words]) => `    '${key}') echo "${shellWords(words)}" ;;`);
  return [`${name}() {`, '  case "$1" in', ...arms, '  esac', '}'].join('\n');
}

function tables(program: Command): string {
  const all = entries(program, '', []);
  return [
    caseTable(
      '__nodeherd_subcommands',
      all.map((e) => [e.path, e.subcommands]),
    ),
    caseTable(
      '__nodeherd_options',
      all.map((e) => [e.path, e.options]),
    ),
    caseTable(
      '__nodeherd_valued',
      all.map((e) => [e.path, e.valued]),
    ),
    // Where a pool's or node's name goes: "<path> <flag>" for options, "<path>" for arguments.
    caseTable('__nodeherd_named', [
      ...all.flatMap((e) =>
        [...e.named].map(([flag, kind]): [string, string[]] => [`${e.path} ${flag}`, [kind]]),
      ),
      ...all
        .filter((e) => e.args.some((k) => k !== undefined))
        .map((e): [string, string[]] => [e.path, ['args']]),
    ]),
    caseTable(
      '__nodeherd_choices',
      all.flatMap((e) =>
        [...e.choices].map(([flag, values]): [string, string[]] => [`${e.path} ${flag}`, values]),
      ),
    ),
  ].join('\n\n');
}

// Shared by bash and zsh. Prints "<command path>|<option waiting for a value, or nothing>".
const WALKER = `__nodeherd_walk() {
  local cmdpath='' pending='' word
  for word in "$@"; do
    if [ -n "$pending" ]; then pending=''; continue; fi
    case $word in
      --*=*) continue ;;
      -*)
        case " $(__nodeherd_valued "$cmdpath") " in *" $word "*) pending=$word ;; esac
        continue ;;
    esac
    case " $(__nodeherd_subcommands "$cmdpath") " in
      *" $word "*) cmdpath=\${cmdpath:+$cmdpath/}$word ;;
    esac
  done
  printf '%s|%s\\n' "$cmdpath" "$pending"
}`;

function bashScript(program: Command): string {
  return `# bash completion for nodeherd (generated by \`nodeherd completion bash\`).
# Load it with: source <(nodeherd completion bash)   or save it under ~/.local/share/bash-completion/completions/nodeherd

${tables(program)}

${WALKER}

_nodeherd() {
  local cur=\${COMP_WORDS[COMP_CWORD]} state cmdpath pending
  state=$(__nodeherd_walk "\${COMP_WORDS[@]:1:COMP_CWORD-1}")
  cmdpath=\${state%%|*}
  pending=\${state#*|}
  COMPREPLY=()
  if [ -n "$pending" ]; then
    # An option's value: its choices, else a pool's or node's name, else files (complete -o default).
    COMPREPLY=($(compgen -W "$(__nodeherd_choices "$cmdpath $pending")" -- "$cur"))
    [ -n "$(__nodeherd_named "$cmdpath $pending")" ] && __nodeherd_names "\${COMP_WORDS[0]}" "\${COMP_WORDS[@]:1:COMP_CWORD}"
    return 0
  fi
  case $cur in
    -*) COMPREPLY=($(compgen -W "$(__nodeherd_options "$cmdpath")" -- "$cur")) ;;
    *)
      COMPREPLY=($(compgen -W "$(__nodeherd_subcommands "$cmdpath")" -- "$cur"))
      # A command's argument: a pool's or node's name from the cluster (the program answers).
      [ -n "$(__nodeherd_named "$cmdpath")" ] && __nodeherd_names "\${COMP_WORDS[0]}" "\${COMP_WORDS[@]:1:COMP_CWORD}"
      ;;
  esac
  return 0
}

# Asks the program (cobra's __complete, as kubectl does) for the names of pools or nodes; its last line
# is ":<directive>" (4: these names; 0: file names, left to complete -o default).
__nodeherd_names() {
  local cmd=$1 out line
  shift
  out=$("$cmd" __complete "$@" 2>/dev/null) || return 0
  case $out in *":4") ;; *) return 0 ;; esac
  while IFS= read -r line; do
    case $line in :*) ;; *) COMPREPLY+=("$line") ;; esac
  done <<< "$out"
}

complete -o default -F _nodeherd nodeherd kubectl-nodeherd
`;
}

function zshScript(program: Command): string {
  return `#compdef nodeherd kubectl-nodeherd
# zsh completion for nodeherd (generated by \`nodeherd completion zsh\`).
# Load it with: source <(nodeherd completion zsh)   or save it as _nodeherd in a directory of $fpath

${tables(program)}

${WALKER}

_nodeherd() {
  local state cmdpath pending cur=\${words[CURRENT]}
  state=$(__nodeherd_walk "\${(@)words[2,CURRENT-1]}")
  cmdpath=\${state%%|*}
  pending=\${state#*|}
  if [[ -n $pending ]]; then
    local choices=$(__nodeherd_choices "$cmdpath $pending")
    if [[ -n $choices ]]; then compadd -- \${=choices}
    elif [[ -n $(__nodeherd_named "$cmdpath $pending") ]]; then __nodeherd_names || _files
    else _files; fi
    return
  fi
  if [[ $cur == -* ]]; then
    compadd -- \${=$(__nodeherd_options "$cmdpath")}
  else
    local subcommands=$(__nodeherd_subcommands "$cmdpath")
    if [[ -n $subcommands ]]; then compadd -- \${=subcommands}
    elif [[ -n $(__nodeherd_named "$cmdpath") ]]; then __nodeherd_names || _files
    else _files; fi
  fi
}

# Asks the program (cobra's __complete, as kubectl does) for the names of pools or nodes; fails when it
# answers with file names instead (its last line ":0").
__nodeherd_names() {
  local out
  out=$(\${words[1]} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  [[ $out == *":4" ]] || return 1
  local -a names=(\${(f)out})
  names=(\${names:#:*})
  (( \${#names} )) && compadd -- "\${(@)names}"
  return 0
}

if [[ \${funcstack[1]} == _nodeherd ]]; then
  _nodeherd "$@"
else
  compdef _nodeherd nodeherd kubectl-nodeherd
fi
`;
}

/** Cobra's directives, which kubectl reads from a plugin's completion helper (the last line, ":<n>"). */
const COBRA_DEFAULT = 0;
const COBRA_NO_FILE_COMPLETION = 4;

/**
 * The same decision as the shell scripts' walker, for kubectl: `args` are the words after the command
 * name, the last one the word being completed (maybe ''). Returns the candidates and whether file names
 * fit instead (an option's value without fixed choices, or a command's arguments).
 */
export function completeArgs(
  program: Command,
  args: readonly string[],
): { candidates: string[]; files: boolean; names?: NameKind } {
  const byPath = new Map(entries(program, '', []).map((e) => [e.path, e]));
  const words = args.slice(0, -1);
  const current = args[args.length - 1] ?? '';
  let path = '';
  let pending: string | undefined;
  let positional = 0;
  for (const word of words) {
    const entry = byPath.get(path)!;
    if (pending !== undefined) {
      pending = undefined;
    } else if (word.startsWith('-')) {
      if (!word.includes('=') && entry.valued.includes(word)) pending = word;
    } else if (entry.subcommands.includes(word)) {
      path = path === '' ? word : `${path}/${word}`;
      positional = 0;
    } else {
      positional++;
    }
  }
  const entry = byPath.get(path)!;
  const match = (list: readonly string[]) => list.filter((candidate) => candidate.startsWith(current));
  if (pending !== undefined) {
    const choices = entry.choices.get(pending);
    const names = entry.named.get(pending);
    if (names) return { candidates: [], files: false, names };
    return choices ? { candidates: match(choices), files: false } : { candidates: [], files: true };
  }
  if (current.startsWith('-')) return { candidates: match(entry.options), files: false };
  const names =
    entry.subcommands.length === 0
      ? (entry.args[positional] ?? (entry.variadic ? entry.args.at(-1) : undefined))
      : undefined;
  if (names) return { candidates: [], files: false, names };
  return { candidates: match(entry.subcommands), files: entry.subcommands.length === 0 };
}

/** What `kubectl_complete-nodeherd` prints: kubectl's plugin completion protocol (cobra's __complete). */
export function kubectlCompletion(program: Command, args: readonly string[]): string {
  const { candidates, files } = completeArgs(program, args);
  return cobraAnswer(candidates, files);
}

function cobraAnswer(candidates: readonly string[], files: boolean): string {
  return `${[...candidates, `:${files ? COBRA_DEFAULT : COBRA_NO_FILE_COMPLETION}`].join('\n')}\n`;
}

/** --kubeconfig and --context as the words being completed give them (either spelling). */
function kubeOptionsOf(words: readonly string[]): { kubeconfig?: string; context?: string } {
  const out: { kubeconfig?: string; context?: string } = {};
  words.forEach((word, i) => {
    for (const key of ['kubeconfig', 'context'] as const) {
      if (word === `--${key}` && words[i + 1] !== undefined) out[key] = words[i + 1]!;
      else if (word.startsWith(`--${key}=`)) out[key] = word.slice(key.length + 3);
    }
  });
  return out;
}

/** Lists the names of pools or nodes from the cluster the words connect to. */
export type NameLister = (
  kind: NameKind,
  options: { kubeconfig?: string; context?: string },
) => Promise<string[]>;

/**
 * `nodeherd __complete`'s answer: as kubectlCompletion, and a pool's or node's name from the cluster
 * (the kubeconfig and context the words name, else the default). A cluster that cannot be reached
 * within the lister's time offers nothing, quietly: completion never prints an error.
 */
export async function completeWithNames(
  program: Command,
  args: readonly string[],
  list: NameLister,
): Promise<string> {
  const answer = completeArgs(program, args);
  if (!answer.names) return cobraAnswer(answer.candidates, answer.files);
  const current = args[args.length - 1] ?? '';
  let names: string[] = [];
  try {
    names = await list(answer.names, kubeOptionsOf(args.slice(0, -1)));
  } catch {
    names = [];
  }
  return cobraAnswer(
    names.filter((n) => n.startsWith(current)),
    false,
  );
}

export function completionScript(program: Command, shell: CompletionShell): string {
  return shell === 'bash' ? bashScript(program) : zshScript(program);
}

/** `nodeherd completion <shell>`; `program` gives the tree to complete (the whole nodeherd program). */
export function completionCommand(program: () => Promise<Command>): Command {
  return new Command('completion')
    .description('print a shell completion script (bash or zsh): source <(nodeherd completion bash)')
    .argument('<shell>', 'bash or zsh', (value: string) => {
      if (!(COMPLETION_SHELLS as readonly string[]).includes(value)) {
        throw new InvalidArgumentError(`must be one of ${COMPLETION_SHELLS.join(', ')}`);
      }
      return value;
    })
    .action(async (shell: CompletionShell) => {
      process.stdout.write(completionScript(await program(), shell));
    });
}
