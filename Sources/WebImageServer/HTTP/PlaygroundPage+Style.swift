extension PlaygroundPage {
    /// The page's style sheet: the form beside the result, stacked on narrow screens.
    static let styleSource = #"""
    :root { color-scheme: light dark; --muted: #888; --line: #8884; --accent: #2a7ae2; }
    * { box-sizing: border-box; }
    body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; font: 15px/1.45 system-ui, sans-serif; }
    header h1 { margin: 0.5rem 0 0; font-size: 1.5rem; }
    header p { margin: 0.25rem 0 1rem; color: var(--muted); }
    h2 { font-size: 1rem; margin: 1.25rem 0 0.4rem; }
    main { display: grid; grid-template-columns: minmax(16rem, 22rem) minmax(0, 1fr); gap: 1.5rem; align-items: start; }
    @media (max-width: 48rem) { main { grid-template-columns: 1fr; } }
    fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 0.75rem; padding: 0.5rem 0.75rem 0.75rem;
      display: grid; grid-template-columns: auto 1fr; gap: 0.4rem 0.75rem; align-items: center; }
    legend { font-weight: 600; padding: 0 0.25rem; }
    input, select { font: inherit; width: 100%; padding: 0.2rem 0.35rem; }
    input[type="radio"], input[type="checkbox"] { width: auto; margin: 0 0.3rem 0 0; }
    .pair { display: flex; gap: 0.5rem; align-items: center; }
    label.inline { white-space: nowrap; }
    .url { margin: 0; padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; word-break: break-all; }
    .notice { border-left: 4px solid #d98b00; padding: 0.5rem 0.75rem; background: #d98b0014; }
    .status { min-height: 1.45em; color: var(--muted); overflow-wrap: anywhere; }
    .status.error { color: #d33; }
    figure { margin: 0; min-height: 2rem; }
    #result { max-width: 100%; height: auto; border: 1px solid var(--line);
      background: repeating-conic-gradient(#8882 0% 25%, transparent 0% 50%) 50% / 16px 16px; }
    .facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; }
    .facts dt { color: var(--muted); }
    .facts dd { margin: 0; font-variant-numeric: tabular-nums; }
    pre { margin: 0; padding: 0.5rem; white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); border-radius: 6px; overflow: auto; max-height: 28rem; }
    a { color: var(--accent); }

    """#
}
