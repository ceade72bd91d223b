import React from "react";

interface Props {
  title: string;
}

export const Header = ({ title }: Props) => {
  return <h1 className="header">{title}</h1>;
};

export default function App() {
  return (
    <div>
      <Header title="hi" />
    </div>
  );
}
