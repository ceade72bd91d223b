//! Crate docs.
use std::collections::HashMap;
use crate::config::{Config, Mode};

/// A point.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

impl Point {
    /// Makes a point.
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

pub trait Area {
    fn area(&self) -> f64;
}

mod inner {
    pub fn helper() -> u32 {
        super::compute(2)
    }
}

fn compute(n: u32) -> u32 {
    let m: HashMap<u32, u32> = HashMap::new();
    n * 2 + m.len() as u32
}

const LIMIT: usize = 10;

mod plan;
#[cfg(test)]
pub(crate) mod tests;
