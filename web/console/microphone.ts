/**
 * The microphone as WebM/Opus chunks (MediaRecorder, a chunk every 250 ms): what a live
 * session sends as binary frames with `audio_format: "webm"`. Asked for before the session
 * starts, so a refused microphone does not use up a ticket. `deviceId` picks one input (the
 * picker's choice, remembered in this browser); `level()` is what the input meter shows.
 */
export class Microphone {
  private recorder: MediaRecorder;
  private readonly audio: AudioContext;
  private readonly analyser: AnalyserNode;
  private readonly samples: Float32Array<ArrayBuffer>;
  private readonly metered: MediaStream;

  private constructor(private readonly stream: MediaStream) {
    const type = ['audio/webm;codecs=opus', 'audio/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    this.recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    // The meter reads its own copy of the track, so measuring never touches what is recorded.
    this.metered = new MediaStream(stream.getAudioTracks().map((t) => t.clone()));
    this.audio = new AudioContext();
    this.analyser = this.audio.createAnalyser();
    this.analyser.fftSize = 2048;
    this.samples = new Float32Array(this.analyser.fftSize);
    this.audio.createMediaStreamSource(this.metered).connect(this.analyser);
  }

  static async open(deviceId = ''): Promise<Microphone> {
    if (!navigator.mediaDevices?.getUserMedia)
      throw new Error('This browser cannot record (a secure page, https or localhost, is needed).');
    const audio: MediaTrackConstraints = { echoCancellation: true, noiseSuppression: true };
    if (deviceId) audio.deviceId = { exact: deviceId };
    const stream = await navigator.mediaDevices.getUserMedia({ audio });
    return new Microphone(stream);
  }

  /** The input's name, as the browser gives it. */
  get label(): string {
    return this.stream.getAudioTracks()[0]?.label ?? '';
  }

  /**
   * The input level now, 0 to 1: the RMS of the last 2048 samples in dBFS, -60 dB (and below)
   * at 0, full scale at 1 (a level meter reads decibels, not amplitude).
   */
  level(): number {
    this.analyser.getFloatTimeDomainData(this.samples);
    let sum = 0;
    for (const v of this.samples) sum += v * v;
    const rms = Math.sqrt(sum / this.samples.length);
    const db = rms > 0 ? 20 * Math.log10(rms) : -Infinity;
    return Math.max(0, Math.min(1, (db + 60) / 60));
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
    // The meter goes first: its audio graph is closed before the recorder flushes.
    for (const track of this.metered.getTracks()) track.stop();
    await this.audio.close().catch(() => {});
    if (this.recorder.state !== 'inactive') {
      const stopped = new Promise((resolve) => this.recorder.addEventListener('stop', resolve, { once: true }));
      this.recorder.stop();
      await stopped;
    }
    for (const track of this.stream.getTracks()) track.stop();
  }
}

const CHOSEN = 'parley.microphone';

/** The input chosen in this browser ('' = the system default). */
export const chosenMicrophone = () => localStorage.getItem(CHOSEN) ?? '';
export const chooseMicrophone = (deviceId: string) => (deviceId ? localStorage.setItem(CHOSEN, deviceId) : localStorage.removeItem(CHOSEN));

/** The audio inputs (names only once the page may use the microphone; until then the browser hides them). */
export async function microphones(): Promise<MediaDeviceInfo[]> {
  if (!navigator.mediaDevices?.enumerateDevices) return [];
  return (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'audioinput' && d.deviceId !== '');
}
