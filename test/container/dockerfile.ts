import { readFileSync } from 'node:fs';

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY... */
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  /** `FROM <image> AS <name>`: the name, or the stage's index. */
  name: string;
  image: string;
  instructions: Instruction[];
}

/** A Dockerfile's stages with their instructions (comments dropped, `\` continuations joined). */
export function readDockerfile(path: string): { args: Instruction[]; stages: Stage[] } {
  const lines = readFileSync(path, 'utf8').split('\n');
  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  lines.forEach((raw, index) => {
    const text = raw.trim();
    if (pending === undefined && (text === '' || text.startsWith('#'))) return;
    if (pending !== undefined && text.startsWith('#')) return;
    const continued = text.endsWith('\\');
    const part = continued ? text.slice(0, -1).trim() : text;
    pending = pending ? { text: `${pending.text} ${part}`, line: pending.line } : { text: part, line: index + 1 };
    if (continued) return;
    const [keyword = '', ...rest] = pending.text.split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: pending.line });
    pending = undefined;
  });
  const args: Instruction[] = [];
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image = '', , name] = instruction.args.split(/\s+/);
      stages.push({ name: name ?? String(stages.length), image, instructions: [] });
    } else if (stages.length === 0) {
      args.push(instruction);
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** The instructions of a stage with this keyword. */
export function withKeyword(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

/** `COPY [--from=x] a b ./dest` → `{ from: 'x', sources: ['a', 'b'], dest: './dest' }`. */
export function copyParts(instruction: Instruction): { from: string | undefined; sources: string[]; dest: string } {
  const words = instruction.args.split(/\s+/);
  const from = words.find((word) => word.startsWith('--from='))?.slice('--from='.length);
  const paths = words.filter((word) => !word.startsWith('--'));
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '' };
}

/** An exec-form argument (`["node", "-e", "..."]`) as its list of words. */
export function execForm(args: string): string[] {
  return JSON.parse(args) as string[];
}
