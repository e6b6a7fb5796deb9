import type { ChatItem } from '../chat';

/** Everything here is text: Preact sets it as text nodes, so an agent's HTML or links stay inert. */
function Item({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case 'input':
      return (
        <li class="msg you" data-seq={item.seq}>
          <span class="who">You</span>
          <p>{item.text}</p>
        </li>
      );
    case 'agent':
      return (
        <li class="msg agent" data-seq={item.seq} aria-busy={item.streaming}>
          <span class="who">Agent</span>
          <p>{item.text}</p>
        </li>
      );
    case 'tool':
      return (
        <li class="tool" data-seq={item.seq}>
          <details>
            <summary>
              Tool <strong>{item.name}</strong>
              {item.result ? (item.result.isError ? ' · failed' : ' · done') : ' · running'}
            </summary>
            <pre>{JSON.stringify(item.input, null, 2)}</pre>
            {item.result ? (
              <pre class={item.result.isError ? 'error' : ''}>{item.result.text}</pre>
            ) : null}
          </details>
        </li>
      );
    case 'permission':
      return (
        <li class="perm" data-seq={item.seq}>
          Permission asked for <strong>{item.tool}</strong>: {item.summary}
          <span class="muted"> · {item.outcome ?? 'waiting for an answer (see Approvals)'}</span>
        </li>
      );
    case 'turn':
      return (
        <li class="turn muted" data-seq={item.seq}>
          {item.summary}
        </li>
      );
    case 'error':
      return (
        <li class="error" data-seq={item.seq}>
          {item.text}
        </li>
      );
    case 'note':
      return (
        <li class="note muted" data-seq={item.seq}>
          {item.text}
        </li>
      );
  }
}

export function ChatView({ items }: { items: ChatItem[] }) {
  return (
    <ol class="chat" aria-label="Conversation">
      {items.map((item) => (
        <Item key={item.seq} item={item} />
      ))}
    </ol>
  );
}
