/**
 * The live view's input controls: which microphone (the browser's audio inputs, the choice
 * remembered in this browser) and its level as it records or is tested, so a person sees
 * the right input is live before speaking to a room.
 */
import { useEffect, useState } from 'preact/hooks';
import { chooseMicrophone, chosenMicrophone, type Microphone, microphones } from './microphone';

/** The input picker; `refresh` changes when the page may newly read the inputs' names. */
export function MicrophoneSelect(props: { disabled?: boolean; refresh?: unknown; onChange?: () => void }) {
  const { disabled, refresh } = props;
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);
  const [chosen, setChosen] = useState(chosenMicrophone());
  useEffect(() => {
    const load = () => void microphones().then(setDevices, () => setDevices([]));
    load();
    navigator.mediaDevices?.addEventListener('devicechange', load);
    return () => navigator.mediaDevices?.removeEventListener('devicechange', load);
  }, [refresh]);
  // A remembered input that is gone (unplugged) falls back to the default.
  const value = devices.some((d) => d.deviceId === chosen) ? chosen : '';
  const named = devices.some((d) => d.label);
  return (
    <div class="field">
      <label for="live-microphone">Microphone</label>
      <select
        id="live-microphone"
        value={value}
        disabled={disabled}
        onChange={(e) => {
          const id = (e.currentTarget as HTMLSelectElement).value;
          chooseMicrophone(id);
          setChosen(id);
          props.onChange?.();
        }}
      >
        <option value="">System default</option>
        {devices
          .filter((d) => d.deviceId !== 'default')
          .map((d, i) => (
            <option key={d.deviceId} value={d.deviceId}>
              {d.label || `Microphone ${i + 1}`}
            </option>
          ))}
      </select>
      {!named && devices.length > 0 ? <span class="muted small">Names appear once the microphone is allowed (Test).</span> : null}
    </div>
  );
}

/** The input level of an open microphone, about ten times a second (empty when none is open). */
export function LevelMeter({ mic }: { mic: Microphone | null }) {
  const [level, setLevel] = useState(0);
  useEffect(() => {
    setLevel(0);
    if (!mic) return;
    const timer = setInterval(() => setLevel(mic.level()), 100);
    return () => clearInterval(timer);
  }, [mic]);
  return (
    <div class="level" title={mic ? mic.label : 'No microphone open'}>
      <label for="input-level">Input level</label>
      <meter id="input-level" min={0} max={1} low={0.2} high={0.9} optimum={0.6} value={level} data-level={level.toFixed(2)} />
      <span class="muted small">{mic ? (level < 0.2 ? 'quiet' : level > 0.9 ? 'too loud' : 'good') : 'off'}</span>
    </div>
  );
}
