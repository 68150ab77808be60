"""Algorithms written as tensor programs, for use inside ``tf.compile``d functions."""
