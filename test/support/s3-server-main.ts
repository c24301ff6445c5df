/**
 * s3rver as its own process (test/support/s3-server.ts starts it): the S3 server's memory and
 * event loop stay out of the process under test. Prints {"port":N} once listening.
 */
import S3rver from 's3rver';

const dir = process.argv[2];
if (!dir) throw new Error('usage: s3-server-main.ts <directory>');
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
