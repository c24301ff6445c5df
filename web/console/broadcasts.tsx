export function BroadcastsScreen(_props: { onCreditChange: () => void }) {
  return (
    <div class="screen">
      <h1>Broadcasts</h1>
    </div>
  );
}
