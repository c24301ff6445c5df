import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speakerTopic } from '../../src/tasks/speakers/service.js';
import { api, backends } from '../support/app.js';
import { readSse, seedTask, startTaskApp, type TaskTestApp } from './harness.js';

const SENTENCES = [
  { sid: 1, origin: 'one', startMs: 0, endMs: 1000, speakerId: 'A' },
  { sid: 2, origin: 'two', startMs: 1000, endMs: 2000, speakerId: 'B' },
  { sid: 3, origin: 'three', startMs: 2000, endMs: 3000, speakerId: 'A' },
  { sid: 4, origin: 'four', startMs: 3000, endMs: 4000, speakerId: 'C' },
];

describe.each(backends())('speaker editing (%s)', (backend) => {
  let t: TaskTestApp;
  beforeAll(async () => {
    t = await startTaskApp(backend);
  });
  afterAll(() => t?.close());

  const diarized = (mode: 'multi_speaker' | 'multi_channel' = 'multi_speaker') =>
    seedTask(t, { recognitionMode: mode, sentences: SENTENCES }).then((x) => x.taskId);
  const patch = (id: string, op: string, body: unknown, key = t.keyA) =>
    api(t.url, 'PATCH', `/api/v1/tasks/${id}/speakers/${op}`, { key, body });
  const labelsInHistory = async (id: string) => {
    const r = await readSse(`${t.url}/api/v1/sse/history/transcribe/${id}`, { 'x-api-key': t.keyA });
    return r.events.filter((e) => e.event === 'init_sentence').map((e) => (e.data as { speaker_label: string }).speaker_label);
  };

  it('rename by original id or current label; affected_sids; event on task.<id>.speakers; history shows the label', async () => {
    const id = await diarized();
    const events: unknown[] = [];
    const off = await t.app.deps.bus.subscribe(speakerTopic(id), (m) => events.push(m));
    const r = await patch(id, 'rename', { speaker_id: 'A', new_label: '  Alice ' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { speaker_id: 'A', new_label: 'Alice', affected_sids: [1, 3] } });
    const again = await patch(id, 'rename', { speaker_id: 'Alice', new_label: 'Alicia' });
    expect(again.body.data).toEqual({ speaker_id: 'A', new_label: 'Alicia', affected_sids: [1, 3] });
    await new Promise((res) => setTimeout(res, 10));
    off();
    expect(events).toEqual([
      { event: 'speaker_renamed', data: { speaker_id: 'A', new_label: 'Alice', affected_sids: [1, 3] } },
      { event: 'speaker_renamed', data: { speaker_id: 'A', new_label: 'Alicia', affected_sids: [1, 3] } },
    ]);
    expect(await labelsInHistory(id)).toEqual(['Alicia', 'B', 'Alicia', 'C']);
  });

  it('rename refuses duplicates, empty names, control characters, long values and unknown speakers', async () => {
    const id = await diarized();
    await patch(id, 'rename', { speaker_id: 'A', new_label: 'Alice' });
    const cases: [unknown, number, string][] = [
      [{ speaker_id: 'B', new_label: 'Alice' }, 422, 'speaker_name_duplicate'],
      [{ speaker_id: 'B', new_label: 'C' }, 422, 'speaker_name_duplicate'],
      // Another speaker's original id is taken even when that speaker shows an alias.
      [{ speaker_id: 'B', new_label: 'A' }, 422, 'speaker_name_duplicate'],
      [{ speaker_id: 'B', new_label: '   ' }, 422, 'speaker_name_empty'],
      [{ speaker_id: 'B', new_label: 'a\nb' }, 422, 'validation_failed'],
      [{ speaker_id: 'B', new_label: 'a\u0007b' }, 422, 'validation_failed'],
      [{ speaker_id: 'B', new_label: 'x'.repeat(101) }, 422, 'validation_failed'],
      [{ speaker_id: 'B' }, 422, 'validation_failed'],
      [{ new_label: 'x' }, 422, 'validation_failed'],
      [{ speaker_id: 'Z', new_label: 'Zed' }, 422, 'speaker_not_found'],
      [{ speaker_id: 'A', new_label: 'Alice' }, 200, ''],
    ];
    for (const [body, status, code] of cases) {
      const r = await patch(id, 'rename', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      if (code) expect(r.body.data.error_code).toBe(code);
    }
    // 100 characters is fine.
    expect((await patch(id, 'rename', { speaker_id: 'B', new_label: 'b'.repeat(100) })).status).toBe(200);
  });

  it('a speaker whose only sentence was reassigned away still exists: the move can be undone; a merge removes it', async () => {
    const id = await diarized();
    await patch(id, 'rename', { speaker_id: 'B', new_label: 'Bob' });
    expect((await patch(id, 'reassign', { sid: 2, target_speaker_id: 'C' })).status).toBe(200);
    // B has no sentence now, and still is a speaker: by id, by label, and as a target.
    const renamed = await patch(id, 'rename', { speaker_id: 'Bob', new_label: 'Bobby' });
    expect(renamed.body.data).toEqual({ speaker_id: 'B', new_label: 'Bobby', affected_sids: [] });
    const back = await patch(id, 'reassign', { sid: 2, target_speaker_id: 'B' });
    expect(back.status).toBe(200);
    expect(back.body.data).toEqual({ sid: 2, old_speaker_id: 'C', new_speaker_id: 'B', new_speaker_label: 'Bobby' });
    expect(await labelsInHistory(id)).toEqual(['A', 'Bobby', 'A', 'C']);
    // Emptied again, then merged away: B is gone.
    await patch(id, 'reassign', { sid: 2, target_speaker_id: 'A' });
    expect((await patch(id, 'merge', { source_speaker_id: 'B', target_speaker_id: 'C' })).status).toBe(200);
    const gone = await patch(id, 'reassign', { sid: 2, target_speaker_id: 'B' });
    expect(gone.status).toBe(422);
    expect(gone.body.data.error_code).toBe('speaker_not_found');
  });

  it('reassign moves one sentence to an existing speaker (original ids only)', async () => {
    const id = await diarized();
    await patch(id, 'rename', { speaker_id: 'C', new_label: 'Carol' });
    const r = await patch(id, 'reassign', { sid: 2, target_speaker_id: 'C' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { sid: 2, old_speaker_id: 'B', new_speaker_id: 'C', new_speaker_label: 'Carol' } });
    expect(await labelsInHistory(id)).toEqual(['A', 'Carol', 'A', 'Carol']);
    const cases: [unknown, string][] = [
      [{ sid: 99, target_speaker_id: 'A' }, 'speaker_sid_not_found'],
      [{ sid: 1, target_speaker_id: 'Carol' }, 'speaker_not_found'],
      [{ sid: '1', target_speaker_id: 'A' }, 'validation_failed'],
      [{ sid: 1 }, 'validation_failed'],
    ];
    for (const [body, code] of cases) {
      const res = await patch(id, 'reassign', body);
      expect(res.status).toBe(422);
      expect(res.body.data.error_code).toBe(code);
    }
  });

  it('merge moves every source sentence and transfers the source alias when the target has none', async () => {
    const id = await diarized();
    await patch(id, 'rename', { speaker_id: 'A', new_label: 'Alice' });
    const events: unknown[] = [];
    const off = await t.app.deps.bus.subscribe(speakerTopic(id), (m) => events.push(m));
    const r = await patch(id, 'merge', { source_speaker_id: 'Alice', target_speaker_id: 'B' });
    expect(r.status).toBe(200);
    // B had no alias: it takes "Alice", so B's own sentence 2 changes display name too.
    expect(r.body).toEqual({
      data: { source_speaker_id: 'A', target_speaker_id: 'B', target_speaker_label: 'Alice', affected_sids: [1, 2, 3] },
    });
    expect(await labelsInHistory(id)).toEqual(['Alice', 'Alice', 'Alice', 'C']);
    await new Promise((res) => setTimeout(res, 10));
    off();
    expect(events).toEqual([{ event: 'speakers_merged', data: r.body.data }]);
    // A no longer exists.
    expect((await patch(id, 'merge', { source_speaker_id: 'A', target_speaker_id: 'C' })).body.data.error_code).toBe('speaker_not_found');
    // When the target has its own alias it keeps it; only the source sentences are affected.
    await patch(id, 'rename', { speaker_id: 'C', new_label: 'Carol' });
    const m2 = await patch(id, 'merge', { source_speaker_id: 'Alice', target_speaker_id: 'Carol' });
    expect(m2.body.data).toEqual({
      source_speaker_id: 'B',
      target_speaker_id: 'C',
      target_speaker_label: 'Carol',
      affected_sids: [1, 2, 3],
    });
    expect(await labelsInHistory(id)).toEqual(['Carol', 'Carol', 'Carol', 'Carol']);
  });

  it('merge of a speaker into itself is 400 merge_speakers_same_id (by id or by label)', async () => {
    const id = await diarized();
    await patch(id, 'rename', { speaker_id: 'A', new_label: 'Alice' });
    for (const body of [
      { source_speaker_id: 'A', target_speaker_id: 'A' },
      { source_speaker_id: 'Alice', target_speaker_id: 'A' },
    ]) {
      const r = await patch(id, 'merge', body);
      expect(r.status).toBe(400);
      expect(r.body.data.error_code).toBe('merge_speakers_same_id');
    }
  });

  it('recordings without diarization, multi-channel restrictions, missing transcript, other accounts', async () => {
    const single = (await seedTask(t, { recognitionMode: 'single', sentences: SENTENCES })).taskId;
    const s = await patch(single, 'rename', { speaker_id: 'A', new_label: 'x' });
    expect(s.status).toBe(422);
    expect(s.body.data.error_code).toBe('speaker_diarization_required');

    const mc = await diarized('multi_channel');
    expect((await patch(mc, 'rename', { speaker_id: 'A', new_label: 'Left mic' })).status).toBe(200);
    for (const [op, body] of [
      ['reassign', { sid: 1, target_speaker_id: 'B' }],
      ['merge', { source_speaker_id: 'A', target_speaker_id: 'B' }],
    ] as const) {
      const r = await patch(mc, op, body);
      expect(r.status).toBe(422);
      expect(r.body.data.error_code).toBe('speaker_op_not_allowed_multi_channel');
      expect(r.body.data.details.recognition_mode).toBe('multi_channel');
    }

    const empty = (await seedTask(t, { recognitionMode: 'multi_speaker', status: 'recording' })).taskId;
    const e = await patch(empty, 'rename', { speaker_id: 'A', new_label: 'x' });
    expect(e.status).toBe(404);
    expect(e.body.data.error_code).toBe('speaker_transcript_not_found');

    const id = await diarized();
    const f = await patch(id, 'rename', { speaker_id: 'A', new_label: 'x' }, t.keyB);
    expect(f.status).toBe(404);
    expect(f.body.data.error_code).toBe('recording_not_found');
    expect((await patch('not-a-uuid', 'rename', { speaker_id: 'A', new_label: 'x' })).status).toBe(404);
  });

  it('of two edits planned on the same revision exactly one applies; the other is 409', async () => {
    const id = await diarized();
    const { speakers } = t.mod;
    const p1 = await speakers.planRename(t.principalA, id, { speaker_id: 'A', new_label: 'First' });
    const p2 = await speakers.planMerge(t.principalA, id, { source_speaker_id: 'A', target_speaker_id: 'B' });
    const results = await Promise.allSettled([speakers.commit(p1), speakers.commit(p2)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toMatchObject({ code: 'transcript_revision_conflict', status: 409 });
    // The winner's change is whole; the loser left no trace.
    const labels = await labelsInHistory(id);
    expect([
      ['First', 'B', 'First', 'C'],
      ['B', 'B', 'B', 'C'],
    ]).toContainEqual(labels);
  });

  it('a failing database write is 500 storage_upload_failed and changes nothing', async () => {
    const id = await diarized();
    const db = t.app.deps.database.db;
    // A real write failure: the database itself refuses updates of this transcript.
    if (backend === 'sqlite') {
      await sql
        .raw(`create trigger fail_tr before update on transcripts when old.task_id = '${id}' begin select raise(abort, 'disk full'); end`)
        .execute(db);
    } else {
      await sql
        .raw(
          `create function fail_tr() returns trigger language plpgsql as $$ begin if old.task_id = '${id}' then raise exception 'disk full'; end if; return new; end $$`,
        )
        .execute(db);
      await sql.raw('create trigger fail_tr before update on transcripts for each row execute function fail_tr()').execute(db);
    }
    try {
      const r = await patch(id, 'rename', { speaker_id: 'A', new_label: 'Alice' });
      expect(r.status).toBe(500);
      expect(r.body.data.error_code).toBe('storage_upload_failed');
      expect(await labelsInHistory(id)).toEqual(['A', 'B', 'A', 'C']);
    } finally {
      await sql
        .raw(backend === 'sqlite' ? 'drop trigger fail_tr' : 'drop trigger fail_tr on transcripts; drop function fail_tr()')
        .execute(db);
    }
    expect((await patch(id, 'rename', { speaker_id: 'A', new_label: 'Alice' })).status).toBe(200);
  });

  it('concurrent HTTP edits: each is applied whole or answered 409, never half-applied', async () => {
    const id = await diarized();
    const bodies = Array.from({ length: 8 }, (_, i) => ({ speaker_id: 'A', new_label: `Name ${i}` }));
    const res = await Promise.all(bodies.map((b) => patch(id, 'rename', b)));
    for (const r of res) expect([200, 409]).toContain(r.status);
    const conflicts = res.filter((r) => r.status === 409);
    for (const c of conflicts) expect(c.body.data.error_code).toBe('transcript_revision_conflict');
    const transcript = await t.mod.store.getTranscript(id);
    expect(transcript!.revision).toBe(res.filter((r) => r.status === 200).length);
  });
});
