/**
 * Task routes (spec "Tasks", "Speaker editing", SSE history and audio). The composition
 * root passes the real Authenticator and the task services; everything else comes in
 * through `TaskRouteDeps`.
 */
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { principalOf, requireApiKey } from '../platform/auth/hooks.js';
import { API_KEY, Data, documentedInput, errors, MessageData, TaskIdParams } from '../platform/http/api-doc.js';
import { ok } from '../platform/http/reply.js';
import type { HttpApp } from '../platform/http/types.js';
import { registerExportRoutes } from './export-routes.js';
import { taskDetail } from './format.js';
import type { TaskRouteDeps } from './route-deps.js';
import { MergeBody, Merged, ReassignBody, Reassigned, Renamed, RenameSpeakerBody, TaskDetail, TaskIds, TaskItem } from './schemas.js';
import { registerTaskSseRoutes } from './sse-routes.js';
import { bodyObject, listQuery, requireBoolean, taskName, uuidList } from './validate.js';

type IdParams = { Params: { taskId: string } };

export function registerTaskRoutes(app: HttpApp, deps: TaskRouteDeps): void {
  const { tasks, speakers } = deps;
  const onRequest = requireApiKey(deps.auth, 'header');
  // Input is checked by hand (validate.ts: the spec's 422s, no coercion); schemas document it.
  const base = { onRequest, ...documentedInput };
  const op = (summary: string, tags = ['tasks']) => ({ tags, summary, security: API_KEY });
  const notFound = ['recording_not_found'] as const;

  app.get(
    '/api/v1/tasks',
    {
      ...base,
      schema: {
        ...op('List tasks: pinned first, then newest'),
        description:
          'status completed (default), active (recording, importing, uploading, processing) or all. task_ids[] (repeat the parameter, with the brackets) narrows the list to 1-100 own tasks; unknown or foreign ids are skipped, and status still applies.',
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('completed'), Type.Literal('active'), Type.Literal('all')], { default: 'completed' }),
          ),
          'task_ids[]': Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 100 })),
        }),
        response: { 200: Data(Type.Object({ tasks: Type.Array(TaskItem) })), ...errors([], { auth: true, input: true }) },
      },
    },
    async (request, reply) => {
      const { statuses, ids } = listQuery(request.query as Record<string, unknown>);
      const body = await tasks.listBody(principalOf(request), statuses, ids);
      // The list is JSON rendered by the database (list-json.ts), sent as is.
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  // Static batch paths are declared before the id routes; the router prefers them anyway.
  app.put(
    '/api/v1/tasks/batch/pin',
    {
      ...base,
      schema: {
        ...op('Pin or unpin up to 100 own tasks'),
        description: 'affected_count counts rows actually changed; ids not owned are ignored.',
        body: Type.Object({ task_ids: TaskIds, is_pinned: Type.Boolean() }),
        response: { 200: Data(Type.Object({ affected_count: Type.Integer() })), ...errors([], { auth: true, body: true }) },
      },
    },
    async (request) => {
      const body = bodyObject(request.body);
      const ids = uuidList(body.task_ids, 'task_ids');
      const pinned = requireBoolean(body, 'is_pinned');
      return ok({ affected_count: await tasks.setPinnedMany(principalOf(request), ids, pinned) });
    },
  );

  app.delete(
    '/api/v1/tasks/batch',
    {
      ...base,
      schema: {
        ...op('Delete up to 100 own tasks permanently'),
        description:
          'Same scope as a single delete. Tasks that cannot be deleted are listed in skipped with a reason (not_found for unknown or foreign ids, invalid_processing_status while recording or processing).',
        body: Type.Object({ task_ids: TaskIds }),
        response: {
          200: MessageData(
            Type.Object({
              deleted_count: Type.Integer(),
              skipped: Type.Array(
                Type.Object({ task_id: Type.String(), reason: Type.String({ description: 'not_found or invalid_processing_status' }) }),
              ),
            }),
          ),
          ...errors([], { auth: true, body: true }),
        },
      },
    },
    async (request) => {
      const body = bodyObject(request.body);
      const ids = uuidList(body.task_ids, 'task_ids');
      const result = await tasks.deleteMany(principalOf(request), ids);
      return { message: `${result.deleted_count} task(s) deleted.`, data: result };
    },
  );

  app.get<IdParams>(
    '/api/v1/tasks/:taskId',
    {
      ...base,
      schema: {
        ...op('One task with its fields (Parley, beyond the interface)'),
        description:
          'The list item of the task plus name_source, recognition_mode, has_audio, import_id, failure_source, error_code and updated_at; works in every processing status.',
        params: TaskIdParams,
        response: { 200: Data(TaskDetail), ...errors(notFound, { auth: true }) },
      },
    },
    async (request) => ok(taskDetail(await tasks.owned(principalOf(request), request.params.taskId))),
  );

  app.delete<IdParams>(
    '/api/v1/tasks/:taskId',
    {
      ...base,
      schema: {
        ...op('Delete a task with its audio, transcript, summary, translations and imported source file'),
        params: TaskIdParams,
        response: {
          200: Type.Object({ message: Type.String() }),
          ...errors([...notFound, 'invalid_processing_status'], { auth: true }),
        },
      },
    },
    async (request) => {
      await tasks.delete(principalOf(request), request.params.taskId);
      return { message: 'Task deleted.' };
    },
  );

  app.put<IdParams>(
    '/api/v1/tasks/:taskId/pin',
    {
      ...base,
      schema: {
        ...op('Set the pin flag'),
        params: TaskIdParams,
        body: Type.Object({ is_pinned: Type.Boolean() }),
        response: { 200: Data(Type.Object({ is_pinned: Type.Boolean() })), ...errors(notFound, { auth: true, body: true }) },
      },
    },
    async (request) => {
      const body = bodyObject(request.body);
      const principal = principalOf(request);
      // Unknown task first (404), then the body (422), as a client fixing one thing at a time expects.
      await tasks.owned(principal, request.params.taskId);
      const pinned = requireBoolean(body, 'is_pinned');
      return ok({ is_pinned: await tasks.setPinned(principal, request.params.taskId, pinned) });
    },
  );

  app.put<IdParams>(
    '/api/v1/tasks/:taskId/read',
    {
      ...base,
      schema: {
        ...op('Mark a task read'),
        params: TaskIdParams,
        response: { 200: Data(Type.Object({ is_unread: Type.Literal(false) })), ...errors(notFound, { auth: true }) },
      },
    },
    async (request) => {
      await tasks.markRead(principalOf(request), request.params.taskId);
      return ok({ is_unread: false });
    },
  );

  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/name',
    {
      ...base,
      schema: {
        ...op('Rename a task; name_source becomes user'),
        params: TaskIdParams,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 60, description: '1-60 characters after trimming; no control characters' }),
        }),
        response: {
          200: MessageData(Type.Object({ task_id: Type.String(), name: Type.String(), name_source: Type.String() })),
          ...errors(notFound, { auth: true, body: true }),
        },
      },
    },
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
    {
      ...base,
      schema: {
        ...op('Mark a stuck task failed (failure_source user_forced)'),
        description: 'Ends its live session first; refused (422) for a completed or failed task and while its import is still processing.',
        params: TaskIdParams,
        response: {
          200: MessageData(
            Type.Object({
              task_id: Type.String(),
              processing_status: Type.String(),
              failure_source: Type.Union([Type.String(), Type.Null()]),
            }),
          ),
          ...errors([...notFound, 'invalid_processing_status'], { auth: true }),
        },
      },
    },
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
    {
      ...base,
      schema: {
        ...op('Reprocess a failed task from its stored audio'),
        description: '202: the task is processing again; it ends completed or failed as any task (webhooks too).',
        params: TaskIdParams,
        response: {
          202: MessageData(Type.Object({ task_id: Type.String(), processing_status: Type.String() })),
          ...errors([...notFound, 'invalid_processing_status', 'recording_audio_not_ready'], { auth: true }),
        },
      },
    },
    async (request, reply) => {
      const task = await tasks.retry(principalOf(request), request.params.taskId);
      reply.code(202);
      return { message: 'Task queued for reprocessing.', data: { task_id: task.taskId, processing_status: task.processingStatus } };
    },
  );

  const speakerErrors = (extra: Parameters<typeof errors>[0]) =>
    errors(
      [
        ...notFound,
        'speaker_transcript_not_found',
        'speaker_diarization_required',
        'speaker_not_found',
        'transcript_revision_conflict',
        'storage_upload_failed',
        ...extra,
      ],
      { auth: true, body: true },
    );
  const speakerOp = (summary: string) => op(summary, ['speakers']);
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/rename',
    {
      ...base,
      schema: {
        ...speakerOp('Rename a speaker (original id or current label); also on multi-channel recordings'),
        params: TaskIdParams,
        body: RenameSpeakerBody,
        response: { 200: Data(Renamed), ...speakerErrors(['speaker_name_empty', 'speaker_name_duplicate']) },
      },
    },
    async (request) => ok(await speakers.rename(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/reassign',
    {
      ...base,
      schema: {
        ...speakerOp('Move one sentence to another speaker (original ids)'),
        params: TaskIdParams,
        body: ReassignBody,
        response: { 200: Data(Reassigned), ...speakerErrors(['speaker_sid_not_found', 'speaker_op_not_allowed_multi_channel']) },
      },
    },
    async (request) => ok(await speakers.reassign(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );
  app.patch<IdParams>(
    '/api/v1/tasks/:taskId/speakers/merge',
    {
      ...base,
      schema: {
        ...speakerOp('Merge one speaker into another; the source alias moves to a target without one'),
        params: TaskIdParams,
        body: MergeBody,
        response: {
          200: Data(Merged),
          ...speakerErrors(['merge_speakers_same_id', 'speaker_op_not_allowed_multi_channel', 'speaker_name_duplicate']),
        },
      },
    },
    async (request) => ok(await speakers.merge(principalOf(request), request.params.taskId, bodyObject(request.body))),
  );

  registerExportRoutes(app, deps);
  registerTaskSseRoutes(app, deps);
}
