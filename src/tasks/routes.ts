/**
 * Task routes (spec "Tasks", "Speaker editing", SSE history and audio). The composition
 * root passes the real Authenticator and the task services; everything else comes in
 * through `TaskRouteDeps`.
 */
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { registerExportRoutes } from './export-routes.js';
import type { TaskRouteDeps } from './route-deps.js';
import { registerTaskSseRoutes } from './sse-routes.js';
import { bodyObject, doc, listQuery, requireBoolean, taskName, uuidList } from './validate.js';

type IdParams = { Params: { taskId: string } };

export function registerTaskRoutes(app: HttpApp, deps: TaskRouteDeps): void {
  const { tasks, speakers } = deps;
  const auth = requireApiKey(deps.auth, 'header');
  const base = { onRequest: auth, schema: { tags: ['tasks'], security: [{ apiKey: [] }] } };

  app.get(
    '/api/v1/tasks',
    doc(base, 'List tasks: status completed (default), active or all; task_ids[] (1-100 UUIDs); pinned first, then newest.'),
    async (request, reply) => {
      const { statuses, ids } = listQuery(request.query as Record<string, unknown>);
      const body = await tasks.listBody(principalOf(request), statuses, ids);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  // Static batch paths are declared before the id routes; the router prefers them anyway.
  app.put(
    '/api/v1/tasks/batch/pin',
    doc(base, 'Pin or unpin up to 100 own tasks; affected_count counts rows actually changed.'),
    async (request) => {
      const body = bodyObject(request.body);
      const ids = uuidList(body.task_ids, 'task_ids');
      const pinned = requireBoolean(body, 'is_pinned');
      return ok({ affected_count: await tasks.setPinnedMany(principalOf(request), ids, pinned) });
    },
  );

  app.delete(
    '/api/v1/tasks/batch',
    doc(base, 'Delete up to 100 own tasks permanently; body {task_ids}; data {deleted_count, skipped[{task_id, reason}]}.'),
    async (request) => {
      const body = bodyObject(request.body);
      const ids = uuidList(body.task_ids, 'task_ids');
      const result = await tasks.deleteMany(principalOf(request), ids);
      return { message: `${result.deleted_count} task(s) deleted.`, data: result };
    },
  );

  app.delete<IdParams>(
    '/api/v1/tasks/:taskId',
    doc(base, 'Delete a task with its audio, transcript, summary, translations and imported source file.'),
    async (request) => {
      await tasks.delete(principalOf(request), request.params.taskId);
      return { message: 'Task deleted.' };
    },
  );

  app.put<IdParams>('/api/v1/tasks/:taskId/pin', doc(base, 'Set the pin flag (body is_pinned boolean).'), async (request) => {
    const body = bodyObject(request.body);
    const principal = principalOf(request);
    // Unknown task first (404), then the body (422), as a client fixing one thing at a time expects.
    await tasks.owned(principal, request.params.taskId);
    const pinned = requireBoolean(body, 'is_pinned');
    return ok({ is_pinned: await tasks.setPinned(principal, request.params.taskId, pinned) });
  });

  app.put<IdParams>('/api/v1/tasks/:taskId/read', doc(base, 'Mark a task read.'), async (request) => {
    await tasks.markRead(principalOf(request), request.params.taskId);
    return ok({ is_unread: false });
  });

  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/name',
    doc(base, 'Rename a task (name, 1-60 characters after trimming); name_source becomes user.'),
    async (request) => {
      const principal = principalOf(request);
      await tasks.owned(principal, request.params.taskId);
      const name = taskName(bodyObject(request.body));
      const task = await tasks.rename(principal, request.params.taskId, name);
      return { message: 'Task renamed.', data: { task_id: task.taskId, name: task.title, name_source: task.nameSource } };
    },
  );

  app.post<IdParams>(
    '/api/v1/tasks/:taskId/force-fail',
    doc(base, 'Mark a stuck task failed (user_forced); ends its live session first.'),
    async (request) => {
      const task = await tasks.forceFail(principalOf(request), request.params.taskId);
      return {
        message: 'Task marked failed.',
        data: { task_id: task.taskId, processing_status: task.processingStatus, failure_source: task.failureSource },
      };
    },
  );

  app.post<IdParams>(
    '/api/v1/tasks/:taskId/retry',
    doc(base, 'Reprocess a failed task from its stored audio; 202, the task is processing.'),
    async (request, reply) => {
      const task = await tasks.retry(principalOf(request), request.params.taskId);
      reply.code(202);
      return { message: 'Task queued for reprocessing.', data: { task_id: task.taskId, processing_status: task.processingStatus } };
    },
  );

  const speakerBase = { onRequest: auth, schema: { tags: ['speakers'], security: [{ apiKey: [] }] } };
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/rename',
    doc(speakerBase, 'Rename a speaker (original id or current label).'),
    async (request) => ok(await speakers.rename(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/reassign',
    doc(speakerBase, 'Move one sentence to another speaker (original ids).'),
    async (request) => ok(await speakers.reassign(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/merge',
    doc(speakerBase, 'Merge one speaker into another; the source alias moves to a target without one.'),
    async (request) => ok(await speakers.merge(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );

  registerExportRoutes(app, deps);
  registerTaskSseRoutes(app, deps);
}
