/**
 * Builds the task feature from the app's dependencies. The composition root keeps the
 * result on AppDeps-like wiring so imports and live sessions write through `store`.
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
  });
  return { store, tasks, speakers: new SpeakerService(tasks, store, deps.bus) };
}
