export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <a href="/console/definitions">Go to definitions</a>
      </p>
    </>
  );
}
