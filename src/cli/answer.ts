import { answerText } from '../domain/answers.js';
import { StartupError } from '../domain/errors.js';
import { locateProject } from '../domain/project.js';
import { recordAnswer } from '../store/answers.js';
import { openStore } from '../store/open/openStore.js';

/**
 * `ralph-mcp answer`: a person answers a question an agent asked (`ask`); agents read it with
 * get_answers. On the legacy generation, whose UI cannot answer, this is the only way.
 */
export function answerQuestion(
  projectDir: string,
  dbOverride: string | undefined,
  questionId: number,
  text: string,
): string {
  const answer = answerText(text);
  if ('problem' in answer) throw new StartupError(`--text ${answer.problem}`);
  const project = locateProject(projectDir, dbOverride);
  const { store } = openStore(project.dbPath);
  try {
    const q = recordAnswer(store, questionId, answer.text);
    if (!q)
      throw new StartupError(
        `no question with id ${questionId} in ${project.dbPath}; agents see the ids with get_answers, get_task (open_questions)`,
      );
    return `answered question ${q.id} on task ${q.task_id}: ${JSON.stringify(q.question)}`;
  } finally {
    store.close();
  }
}
