pub mod mixed;
