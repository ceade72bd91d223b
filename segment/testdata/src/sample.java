package com.example;

import java.util.List;
import java.util.Map;

/**
 * A registry.
 */
public class Registry<T> {
  private final Map<String, T> byName;
  private int count;

  public Registry(Map<String, T> byName) {
    this.byName = byName;
  }

  /** Looks a name up. */
  @Override
  public T lookup(String name) {
    return byName.get(normalize(name));
  }

  private static String normalize(String s) {
    return s.trim();
  }

  enum Mode {
    FAST,
    SLOW;

    boolean quick() {
      return this == FAST;
    }
  }

  interface Listener {
    void changed(String name);
  }
}
