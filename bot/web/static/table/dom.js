// Building elements without markup strings: every text goes in as text (never as HTML), and no
// style attribute is ever written (the page's policy refuses inline styles; CSS custom
// properties set through the CSSOM are allowed).

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = value;
    else if (name === "vars") setVars(element, value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined) continue;
    if (name === "class") element.setAttribute("class", value);
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child) element.append(child);
  }
  return element;
}

// CSS custom properties (positions, counts) through the CSSOM, which the policy allows.
export function setVars(element, vars) {
  for (const [name, value] of Object.entries(vars)) element.style.setProperty(`--${name}`, value);
}
