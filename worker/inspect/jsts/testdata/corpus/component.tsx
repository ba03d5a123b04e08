import React, { useState, useEffect } from "react";
import type { FC, ReactNode } from "react";

interface Props {
  title: string;
  items: ReadonlyArray<{ id: number; label: string }>;
  children?: ReactNode;
}

export const List: FC<Props> = ({ title, items, children }) => {
  const [open, setOpen] = useState<boolean>(false);
  useEffect(() => {
    if (items.length > 10 && !open) setOpen(true);
  }, [items, open]);
  return (
    <section className="list" data-open={open ? "yes" : "no"}>
      <h2 onClick={() => setOpen(o => !o)}>{title} ({items.length})</h2>
      {open && (
        <ul>
          {items.map(item => <li key={item.id}>it's {item.label} {"}"}</li>)}
        </ul>
      )}
      <>{children}</>
      <Footer render={<span>{"a < b"} &amp; {a > b}</span>} />
    </section>
  );
};

function identity<T,>(value: T): T {
  return value;
}

const generic = <T extends unknown>(x: T) => x;

export default function App() {
  const text = `total: ${[1, 2, 3].reduce((a, b) => a + b, 0) / 3}`;
  return <List title={text} items={[]}><p>// not a comment</p></List>;
}

class Footer extends React.Component<{ render: ReactNode }> {
  render() {
    return <footer>{this.props.render}</footer>;
  }
}
