## Windowed play (placeholder, filled in below).
extends Node2D
