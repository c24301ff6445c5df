/**
 * Library: search over everything said (search.tsx); every task with its status; filter, pin,
 * rename, delete (one or many); a task opens in TaskView.
 */
import { useMemo, useState } from 'preact/hooks';
import { parley } from './api';
import { LibrarySearch } from './search';
import { TaskView } from './task';
import { Card, ErrorNote, formatDate, StatusBadge, Table, useLoad } from './ui';

const ACTIVE = new Set(['recording', 'importing', 'uploading', 'pending', 'processing']);

export function LibraryScreen({ taskId }: { taskId: string | null }) {
  if (taskId) return <TaskView taskId={taskId} />;
  return <TaskList />;
}

function TaskList() {
  const tasks = useLoad(async () => parley.tasks.list({ status: 'all' }));
  const [query, setQuery] = useState('');
  const [status, setStatus] = useState('any');
  const [source, setSource] = useState('any');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (tasks.value ?? []).filter(
      (t) =>
        (!q || t.title.toLowerCase().includes(q)) &&
        (status === 'any' || (status === 'active' ? ACTIVE.has(t.processing_status) : t.processing_status === status)) &&
        (source === 'any' || t.type_source === source),
    );
  }, [tasks.value, query, status, source]);

  const act = async (what: () => Promise<string | undefined>) => {
    setError(null);
    try {
      setNotice((await what()) ?? '');
      await tasks.reload();
    } catch (err) {
      setError(err);
    }
  };
  const pin = (ids: string[], on: boolean) =>
    act(async () => {
      if (ids.length === 1) await parley.tasks.pin(ids[0]!, on);
      else await parley.tasks.pinMany(ids, on);
      return `${on ? 'Pinned' : 'Unpinned'} ${ids.length} task${ids.length === 1 ? '' : 's'}.`;
    });
  const remove = (ids: string[]) =>
    act(async () => {
      setConfirmDelete(null);
      setSelected(new Set());
      const r = (await parley.tasks.deleteMany(ids)).data;
      const skipped = r.skipped.length ? ` ${r.skipped.length} skipped (still processing or gone).` : '';
      return `Deleted ${r.deleted_count} task${r.deleted_count === 1 ? '' : 's'}.${skipped}`;
    });
  const rename = (id: string, name: string) =>
    act(async () => {
      setRenaming(null);
      await parley.tasks.rename(id, name);
      return 'Renamed.';
    });

  const allChecked = shown.length > 0 && shown.every((t) => selected.has(t.task_id));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const chosen = [...selected];

  return (
    <div class="screen">
      <div class="screen-head">
        <h1>Library</h1>
        <button type="button" onClick={() => tasks.reload()}>
          Refresh
        </button>
      </div>
      <Card title="Search" id="search">
        <LibrarySearch />
      </Card>
      <Card title="Recordings and imports" id="tasks">
        <search class="toolbar">
          <div class="field">
            <label for="task-search">Search titles</label>
            <input id="task-search" type="search" value={query} onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="task-status">Status</label>
            <select id="task-status" value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
              <option value="any">Any</option>
              <option value="completed">Completed</option>
              <option value="active">In progress</option>
              <option value="failed">Failed</option>
            </select>
          </div>
          <div class="field">
            <label for="task-source">Source</label>
            <select id="task-source" value={source} onChange={(e) => setSource((e.currentTarget as HTMLSelectElement).value)}>
              <option value="any">Any</option>
              <option value="realtime">Live</option>
              <option value="import">Import</option>
              <option value="broadcast">Broadcast</option>
            </select>
          </div>
        </search>
        {chosen.length > 0 ? (
          <fieldset class="batch">
            <legend class="sr-only">Selected tasks</legend>
            <span>{chosen.length} selected</span>
            <button type="button" onClick={() => pin(chosen, true)}>
              Pin
            </button>
            <button type="button" onClick={() => pin(chosen, false)}>
              Unpin
            </button>
            <button type="button" class="danger" onClick={() => setConfirmDelete(chosen)}>
              Delete selected
            </button>
          </fieldset>
        ) : null}
        {confirmDelete ? (
          <div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
            <span id="confirm-text">
              Delete {confirmDelete.length} task{confirmDelete.length === 1 ? '' : 's'} permanently (audio, transcript, summary)?
            </span>
            <button type="button" class="danger" onClick={() => remove(confirmDelete)}>
              Delete permanently
            </button>
            <button type="button" onClick={() => setConfirmDelete(null)}>
              Cancel
            </button>
          </div>
        ) : null}
        <ErrorNote error={error ?? tasks.error} />
        {notice ? (
          <p class="notice" role="status">
            {notice}
          </p>
        ) : null}
        <Table
          class="tasks"
          columns={[
            <input
              type="checkbox"
              aria-label="Select all shown"
              checked={allChecked}
              onChange={(e) => setSelected(new Set((e.currentTarget as HTMLInputElement).checked ? shown.map((t) => t.task_id) : []))}
            />,
            'Pin',
            'Title',
            'Source',
            'Length',
            'Status',
            'Created',
            <span class="sr-only">Actions</span>,
          ]}
        >
          {shown.map((t) => (
            <tr key={t.task_id} class={t.is_unread ? 'unread' : undefined}>
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${t.title}`}
                  checked={selected.has(t.task_id)}
                  onChange={(e) => toggle(t.task_id, (e.currentTarget as HTMLInputElement).checked)}
                />
              </td>
              <td>
                <button
                  type="button"
                  class={`icon pin${t.is_pinned ? ' on' : ''}`}
                  aria-pressed={t.is_pinned}
                  aria-label={`Pin ${t.title}`}
                  onClick={() => pin([t.task_id], !t.is_pinned)}
                >
                  {t.is_pinned ? '★' : '☆'}
                </button>
              </td>
              <td>
                {renaming === t.task_id ? (
                  <RenameForm title={t.title} onSave={(name) => rename(t.task_id, name)} onCancel={() => setRenaming(null)} />
                ) : (
                  <a href={`#/library/${t.task_id}`} class="title">
                    {t.title}
                  </a>
                )}
              </td>
              <td>{t.type_source}</td>
              <td class="num">{t.duration_formatted}</td>
              <td>
                <StatusBadge status={t.processing_status} />
              </td>
              <td>{formatDate(t.created_at)}</td>
              <td class="row-actions">
                <button type="button" onClick={() => setRenaming(t.task_id)} aria-label={`Rename ${t.title}`}>
                  Rename
                </button>
                <button type="button" class="danger" onClick={() => setConfirmDelete([t.task_id])} aria-label={`Delete ${t.title}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
        {tasks.value && shown.length === 0 ? (
          <p class="muted">{tasks.value.length === 0 ? 'Nothing yet: record on Live or import a file.' : 'No task matches.'}</p>
        ) : null}
      </Card>
    </div>
  );
}

export function RenameForm(props: { title: string; onSave: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState(props.title);
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) props.onSave(name.trim());
      }}
    >
      <label class="sr-only" for="rename-input">
        New name
      </label>
      <input
        id="rename-input"
        maxLength={60}
        value={name}
        ref={(el) => el?.focus()}
        onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        onKeyDown={(e) => e.key === 'Escape' && props.onCancel()}
      />
      <button type="submit">Save</button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}
