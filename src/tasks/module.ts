/**
 * Builds the task feature from the app's dependencies: the store (the records' only
 * writer), the task service and speaker editing. `tasksOf(deps)` gives every feature of an
 * app the same instance.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { BlobStore } from '../storage/types.js';
import type { Database } from '../store/database.js';
import { type ImportStatusPort, type TaskReprocessor, TaskService } from './service.js';
import { SpeakerService } from './speakers/service.js';
import { TaskStore } from './store.js';

export interface TaskModule {
  store: TaskStore;
  tasks: TaskService;
  speakers: SpeakerService;
}

export function createTaskModule(deps: {
  database: Database;
  blobs: BlobStore;
  bus: EventBus;
  now?: () => Date;
  logger?: Logger;
  reprocessor?: TaskReprocessor;
  imports?: ImportStatusPort;
  /** ffmpeg binary for MP3 export (PARLEY_FFMPEG). */
  ffmpegPath?: string;
}): TaskModule {
  const store = new TaskStore(deps.database, deps.now);
  const tasks = new TaskService({
    store,
    database: deps.database,
    blobs: deps.blobs,
    bus: deps.bus,
    logger: deps.logger,
    reprocessor: deps.reprocessor,
    imports: deps.imports,
    ffmpegPath: deps.ffmpegPath,
  });
  return { store, tasks, speakers: new SpeakerService(tasks, store, deps.bus) };
}

const shared = new WeakMap<object, TaskModule>();

/**
 * The one task module of an app (created on first use from its dependencies). Imports and
 * live sessions call `tasksOf(deps).store` to write tasks, and set `tasksOf(deps).tasks.reprocessor`
 * / `.imports` to plug in retry and the import-processing check.
 */
export function tasksOf(deps: {
  database: Database;
  blobs: BlobStore;
  bus: EventBus;
  now: () => Date;
  logger?: Logger;
  config?: { engines: { ffmpegPath: string } };
}): TaskModule {
  let mod = shared.get(deps);
  if (!mod) {
    mod = createTaskModule({
      database: deps.database,
      blobs: deps.blobs,
      bus: deps.bus,
      now: deps.now,
      logger: deps.logger?.child({ component: 'tasks' }),
      ffmpegPath: deps.config?.engines.ffmpegPath,
    });
    shared.set(deps, mod);
  }
  return mod;
}
