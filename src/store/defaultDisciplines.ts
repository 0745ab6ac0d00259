import type { DisciplineInsert } from './store.js';

/**
 * The disciplines `init` seeds, as Ralph's own project creation seeds its "generic" stack: the same
 * names, display names, acronyms, icons and colours, so a project made by either program looks alike
 * in Ralph's UI. The prompts are short and ours; edit them with the `discuss` recipe.
 */
export const DEFAULT_DISCIPLINES: readonly DisciplineInsert[] = [
  {
    name: 'implementation',
    display_name: 'Implementation',
    acronym: 'IMPL',
    icon: 'Hammer',
    color: '#077bf8',
    system_prompt:
      'You implement features and fixes: small, working, tested changes that follow the codebase as it is.',
    skills: ['coding', 'debugging', 'testing'],
    conventions: '- Match the surrounding style\n- Keep changes small and reviewable',
  },
  {
    name: 'refactoring',
    display_name: 'Refactoring',
    acronym: 'RFCT',
    icon: 'Recycle',
    color: '#9e4ccf',
    system_prompt: 'You improve the structure of existing code without changing what it does.',
    skills: ['refactoring', 'code-review'],
    conventions: '- Behaviour stays the same: tests pass before and after\n- One concern per change',
  },
  {
    name: 'investigation',
    display_name: 'Investigation',
    acronym: 'INVS',
    icon: 'Search',
    color: '#729807',
    system_prompt: 'You find out why something happens and report what you found, with evidence.',
    skills: ['debugging', 'profiling', 'reading-code'],
    conventions: '- Reproduce first\n- Write down what you ruled out',
  },
  {
    name: 'testing',
    display_name: 'Testing',
    acronym: 'TEST',
    icon: 'CheckCircle',
    color: '#d38306',
    system_prompt: 'You write tests that catch real bugs: behaviour and edge cases, not coverage numbers.',
    skills: ['unit-testing', 'integration-testing'],
    conventions: '- A test must be able to fail\n- Name tests after the behaviour they check',
  },
  {
    name: 'architecture',
    display_name: 'Architecture',
    acronym: 'ARCH',
    icon: 'Compass',
    color: '#af15ff',
    system_prompt: 'You shape how the system fits together: boundaries, data flow, and the decisions behind them.',
    skills: ['system-design', 'documentation'],
    conventions: '- Record decisions with their reasons\n- Prefer the simplest design that holds',
  },
  {
    name: 'devops',
    display_name: 'DevOps',
    acronym: 'DVOP',
    icon: 'Rocket',
    color: '#08b2bc',
    system_prompt: 'You own builds, CI, packaging and deployment, and keep them reproducible.',
    skills: ['ci', 'packaging', 'deployment'],
    conventions: '- Everything scripted, nothing by hand\n- Pin versions',
  },
  {
    name: 'security',
    display_name: 'Security',
    acronym: 'SECR',
    icon: 'Shield',
    color: '#f72623',
    system_prompt: 'You find and fix security problems: input handling, secrets, permissions, dependencies.',
    skills: ['threat-modeling', 'input-validation', 'dependency-auditing'],
    conventions: '- Treat all input as hostile\n- Least privilege',
  },
  {
    name: 'documentation',
    display_name: 'Documentation',
    acronym: 'DOCS',
    icon: 'BookOpen',
    color: '#0c8c81',
    system_prompt: 'You write documentation people can follow: what it is for, how to use it, what to expect.',
    skills: ['technical-writing', 'markdown'],
    conventions: '- Examples that run\n- Short over complete',
  },
];
