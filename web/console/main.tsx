/**
 * The console: sign in with an API key, then five screens (Live, Library, Imports,
 * Broadcasts, Account) chosen by the address's hash (#/library, #/library/<task id>, ...), so
 * the back button and reloads keep the place. The key stays in this browser's localStorage
 * until "Sign out".
 */
import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { AccountScreen } from './account';
import { type Plan, parley, setKey } from './api';
import { BroadcastsScreen } from './broadcasts';
import { ImportsScreen } from './imports';
import { LibraryScreen } from './library';
import { LiveScreen } from './live';
import { ErrorNote, formatPoints } from './ui';

const SCREENS = [
  ['live', 'Live'],
  ['library', 'Library'],
  ['imports', 'Imports'],
  ['broadcasts', 'Broadcasts'],
  ['account', 'Account'],
] as const;
type Screen = (typeof SCREENS)[number][0];

const KEY_STORAGE = 'parley.key';

function route(): { screen: Screen; rest: string[] } {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const screen = SCREENS.find(([id]) => id === parts[0])?.[0] ?? 'live';
  return { screen, rest: parts.slice(1).map(decodeURIComponent) };
}

function SignIn({ onSignedIn }: { onSignedIn: (key: string, plan: Plan) => void }) {
  const [key, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setKey(key.trim());
    try {
      onSignedIn(key.trim(), await parley.me.plan().then((p) => p as Plan));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Parley</h1>
      <p>Live captions, imports, translations and broadcasts. Sign in with an API key.</p>
      <form onSubmit={submit} class="card">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          placeholder="svc_…"
          required
          value={key}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorNote error={error} />
        <p class="muted small">
          The key is printed once at the server's first start (or <code>npm run -s admin -- create-key</code>). It is kept in this browser
          until you sign out.
        </p>
      </form>
    </main>
  );
}

function PlanBadge({ plan }: { plan: Plan }) {
  const text =
    plan.mode === 'credit' ? `${formatPoints(plan.available_credit)} points` : `Unlimited${plan.plan ? ` · ${plan.plan.name}` : ''}`;
  return (
    <a class="plan-badge" href="#/account" title="Plan and credit">
      {text}
    </a>
  );
}

function App() {
  const [key, setSignedIn] = useState<string | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [where, setWhere] = useState(route);
  const [restoring, setRestoring] = useState(() => Boolean(localStorage.getItem(KEY_STORAGE)));

  useEffect(() => {
    const onHash = () => setWhere(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  // A key kept from an earlier visit: check it still works.
  useEffect(() => {
    const saved = localStorage.getItem(KEY_STORAGE);
    if (!saved) return;
    setKey(saved);
    parley.me
      .plan()
      .then((p) => p as Plan)
      .then((p) => {
        setPlan(p);
        setSignedIn(saved);
      })
      .catch(() => localStorage.removeItem(KEY_STORAGE))
      .finally(() => setRestoring(false));
  }, []);

  const refreshPlan = useCallback(() => {
    parley.me
      .plan()
      .then((p) => p as Plan)
      .then(setPlan)
      .catch(() => {});
  }, []);

  if (restoring) return <p class="muted signin">Signing in…</p>;
  if (!key || !plan)
    return (
      <SignIn
        onSignedIn={(k, p) => {
          localStorage.setItem(KEY_STORAGE, k);
          setPlan(p);
          setSignedIn(k);
        }}
      />
    );

  const signOut = () => {
    localStorage.removeItem(KEY_STORAGE);
    setKey('');
    setSignedIn(null);
    setPlan(null);
  };
  const { screen, rest } = where;
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Parley</span>
        <nav aria-label="Screens">
          {SCREENS.map(([id, name]) => (
            <a key={id} href={`#/${id}`} aria-current={screen === id ? 'page' : undefined}>
              {name}
            </a>
          ))}
        </nav>
        <div class="who">
          <PlanBadge plan={plan} />
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {screen === 'live' ? <LiveScreen plan={plan} onCreditChange={refreshPlan} /> : null}
        {screen === 'library' ? <LibraryScreen taskId={rest[0] ?? null} /> : null}
        {screen === 'imports' ? <ImportsScreen /> : null}
        {screen === 'broadcasts' ? <BroadcastsScreen onCreditChange={refreshPlan} /> : null}
        {screen === 'account' ? <AccountScreen plan={plan} onRefresh={refreshPlan} /> : null}
      </main>
    </>
  );
}

const root = document.getElementById('app') as HTMLElement;
root.replaceChildren(); // the static "Loading…" line
render(<App />, root);
