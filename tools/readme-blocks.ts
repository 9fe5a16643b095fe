import { isAgreedPlan, type PlanName, PLANS, type StandardPlan } from '../lambda/core/plans';
import { DEV_PROJECT, DEV_PROJECT_DEFAULT_PLAN } from '../local/dev-project';

/**
 * The README's passages that state a plan's numbers, generated from the plan table by
 * `npm run docs:tables` like the tables of doc/ (the README's other prose is written by hand).
 */

const number = (n: number) => n.toLocaleString('en-US');

/** A paragraph in lines of at most 110 characters (Prettier's print width). */
function wrapped(paragraph: string, width = 110): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

function standardPlan(name: PlanName): StandardPlan {
  const plan = PLANS[name];
  if (isAgreedPlan(plan)) throw new Error(`The README states numbers of standard plans only, not ${name}.`);
  return plan;
}

/** The line `uniq -c` prints for a count (right-aligned in seven columns), as a shell comment. */
const uniqLine = (count: number, what: string) => `# ${String(count).padStart(7)} ${what}`;

export const README_BLOCKS: Readonly<Record<string, () => string[]>> = {
  /** lambda/core/plans.ts: the first five minutes spend the whole minute of a Free project */
  'free-minute': () => {
    const { title, limits } = standardPlan('free');
    const dev = standardPlan(DEV_PROJECT_DEFAULT_PLAN);
    const address = 'http://demo.localhost:3000/v1/pets?limit=1';
    return [
      ...wrapped(
        `**Exhaust a ${title} minute.** Limits are the project's (\`${DEV_PROJECT}\` is on ${dev.title}): create a ` +
          `${title} project (${number(limits.perMinute)} requests per minute, ${number(limits.perDay)} per day) ` +
          'and a key, in the store `npm start` runs (it persists: next time, pick another name):',
      ),
      '',
      '```sh',
      'npm run projects -- create demo --plan free --json',
      '# {"name":"demo","plan":"free","address":"http://demo.localhost:3000/v1","consoleToken":"pct_demo_…"}',
      'npm run keys -- create --project demo --json',
      '# {"id":"…","apiKey":"ask_…","project":"demo"}',
      'FREE=ask_…           # the apiKey it printed',
      `for i in $(seq ${limits.perMinute + 1}); do`,
      `  curl -s -o /dev/null -w '%{http_code}\\n' "${address}" -H "Authorization: Bearer $FREE"`,
      'done | sort | uniq -c',
      uniqLine(limits.perMinute, '200'),
      uniqLine(1, '429'),
      `curl -i "${address}" -H "Authorization: Bearer $FREE"`,
      '```',
    ];
  },
};
