// A parent that starts the server (dist/main.mjs, the bundle `npm start` runs; environment inherited) with stdout and stderr
// piped to itself, prints "pid N" once the server says it listens, and exits: the server's
// output then goes into pipes nobody reads (issue 19's shutdown hang).
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.mjs'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
let seen = '';
child.stdout.on('data', (d) => {
  seen += d.toString();
  if (seen.includes('Parley ')) {
    process.stdout.write(`pid ${child.pid}\n`);
    process.exit(0);
  }
});
child.on('exit', (code) => {
  process.stdout.write(`server exited early with ${code}\n`);
  process.exit(1);
});
