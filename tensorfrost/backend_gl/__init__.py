"""The OpenGL backend (GLSL compute shaders on SSBOs) and the GLSL / HLSL kernel emitters."""
