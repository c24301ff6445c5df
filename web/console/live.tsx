import type { Plan } from './api';

export function LiveScreen(_props: { plan: Plan; onCreditChange: () => void }) {
  return (
    <div class="screen">
      <h1>Live</h1>
    </div>
  );
}
