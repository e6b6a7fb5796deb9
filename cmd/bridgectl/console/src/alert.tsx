/** A failure the person should read: announced by screen readers as it appears. */
export function Alert({ message }: { message: string | undefined }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}
