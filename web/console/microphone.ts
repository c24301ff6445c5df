/**
 * The microphone as WebM/Opus chunks (MediaRecorder, a chunk every 250 ms): what a live
 * session sends as binary frames with `audio_format: "webm"`. Asked for before the session
 * starts, so a refused microphone does not use up a ticket.
 */
export class Microphone {
  private recorder: MediaRecorder;

  private constructor(private readonly stream: MediaStream) {
    const type = ['audio/webm;codecs=opus', 'audio/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    this.recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
  }

  static async open(): Promise<Microphone> {
    if (!navigator.mediaDevices?.getUserMedia)
      throw new Error('This browser cannot record (a secure page, https or localhost, is needed).');
    const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    return new Microphone(stream);
  }

  /** Starts recording; each chunk goes to `onChunk` in order (the first carries the WebM header). */
  start(onChunk: (chunk: Blob) => void): void {
    this.recorder.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0) onChunk(e.data);
    });
    this.recorder.start(250);
  }

  pause(): void {
    if (this.recorder.state === 'recording') this.recorder.pause();
  }

  resume(): void {
    if (this.recorder.state === 'paused') this.recorder.resume();
  }

  /** Stops recording; resolves after the last chunk was handed over. Releases the device. */
  async stop(): Promise<void> {
    if (this.recorder.state !== 'inactive') {
      const stopped = new Promise((resolve) => this.recorder.addEventListener('stop', resolve, { once: true }));
      this.recorder.stop();
      await stopped;
    }
    for (const track of this.stream.getTracks()) track.stop();
  }
}
