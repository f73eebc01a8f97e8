//! 400 nested `if`s around a warp instruction: the macro's recursion must not overflow the
//! compiler's stack (issue 13: rustc crashed with SIGSEGV and the macro's frames on its stack,
//! where plain rustc handles 500).

use warpkit::prelude::*;

#[warp_kernel]
fn deep(w: &Warp, x: u32) -> u32 {
let mut v = x;
if x > 0 {
if x > 1 {
if x > 2 {
if x > 3 {
if x > 4 {
if x > 5 {
if x > 6 {
if x > 7 {
if x > 8 {
if x > 9 {
if x > 10 {
if x > 11 {
if x > 12 {
if x > 13 {
if x > 14 {
if x > 15 {
if x > 16 {
if x > 17 {
if x > 18 {
if x > 19 {
if x > 20 {
if x > 21 {
if x > 22 {
if x > 23 {
if x > 24 {
if x > 25 {
if x > 26 {
if x > 27 {
if x > 28 {
if x > 29 {
if x > 30 {
if x > 31 {
if x > 32 {
if x > 33 {
if x > 34 {
if x > 35 {
if x > 36 {
if x > 37 {
if x > 38 {
if x > 39 {
if x > 40 {
if x > 41 {
if x > 42 {
if x > 43 {
if x > 44 {
if x > 45 {
if x > 46 {
if x > 47 {
if x > 48 {
if x > 49 {
if x > 50 {
if x > 51 {
if x > 52 {
if x > 53 {
if x > 54 {
if x > 55 {
if x > 56 {
if x > 57 {
if x > 58 {
if x > 59 {
if x > 60 {
if x > 61 {
if x > 62 {
if x > 63 {
if x > 64 {
if x > 65 {
if x > 66 {
if x > 67 {
if x > 68 {
if x > 69 {
if x > 70 {
if x > 71 {
if x > 72 {
if x > 73 {
if x > 74 {
if x > 75 {
if x > 76 {
if x > 77 {
if x > 78 {
if x > 79 {
if x > 80 {
if x > 81 {
if x > 82 {
if x > 83 {
if x > 84 {
if x > 85 {
if x > 86 {
if x > 87 {
if x > 88 {
if x > 89 {
if x > 90 {
if x > 91 {
if x > 92 {
if x > 93 {
if x > 94 {
if x > 95 {
if x > 96 {
if x > 97 {
if x > 98 {
if x > 99 {
if x > 100 {
if x > 101 {
if x > 102 {
if x > 103 {
if x > 104 {
if x > 105 {
if x > 106 {
if x > 107 {
if x > 108 {
if x > 109 {
if x > 110 {
if x > 111 {
if x > 112 {
if x > 113 {
if x > 114 {
if x > 115 {
if x > 116 {
if x > 117 {
if x > 118 {
if x > 119 {
if x > 120 {
if x > 121 {
if x > 122 {
if x > 123 {
if x > 124 {
if x > 125 {
if x > 126 {
if x > 127 {
if x > 128 {
if x > 129 {
if x > 130 {
if x > 131 {
if x > 132 {
if x > 133 {
if x > 134 {
if x > 135 {
if x > 136 {
if x > 137 {
if x > 138 {
if x > 139 {
if x > 140 {
if x > 141 {
if x > 142 {
if x > 143 {
if x > 144 {
if x > 145 {
if x > 146 {
if x > 147 {
if x > 148 {
if x > 149 {
if x > 150 {
if x > 151 {
if x > 152 {
if x > 153 {
if x > 154 {
if x > 155 {
if x > 156 {
if x > 157 {
if x > 158 {
if x > 159 {
if x > 160 {
if x > 161 {
if x > 162 {
if x > 163 {
if x > 164 {
if x > 165 {
if x > 166 {
if x > 167 {
if x > 168 {
if x > 169 {
if x > 170 {
if x > 171 {
if x > 172 {
if x > 173 {
if x > 174 {
if x > 175 {
if x > 176 {
if x > 177 {
if x > 178 {
if x > 179 {
if x > 180 {
if x > 181 {
if x > 182 {
if x > 183 {
if x > 184 {
if x > 185 {
if x > 186 {
if x > 187 {
if x > 188 {
if x > 189 {
if x > 190 {
if x > 191 {
if x > 192 {
if x > 193 {
if x > 194 {
if x > 195 {
if x > 196 {
if x > 197 {
if x > 198 {
if x > 199 {
if x > 200 {
if x > 201 {
if x > 202 {
if x > 203 {
if x > 204 {
if x > 205 {
if x > 206 {
if x > 207 {
if x > 208 {
if x > 209 {
if x > 210 {
if x > 211 {
if x > 212 {
if x > 213 {
if x > 214 {
if x > 215 {
if x > 216 {
if x > 217 {
if x > 218 {
if x > 219 {
if x > 220 {
if x > 221 {
if x > 222 {
if x > 223 {
if x > 224 {
if x > 225 {
if x > 226 {
if x > 227 {
if x > 228 {
if x > 229 {
if x > 230 {
if x > 231 {
if x > 232 {
if x > 233 {
if x > 234 {
if x > 235 {
if x > 236 {
if x > 237 {
if x > 238 {
if x > 239 {
if x > 240 {
if x > 241 {
if x > 242 {
if x > 243 {
if x > 244 {
if x > 245 {
if x > 246 {
if x > 247 {
if x > 248 {
if x > 249 {
if x > 250 {
if x > 251 {
if x > 252 {
if x > 253 {
if x > 254 {
if x > 255 {
if x > 256 {
if x > 257 {
if x > 258 {
if x > 259 {
if x > 260 {
if x > 261 {
if x > 262 {
if x > 263 {
if x > 264 {
if x > 265 {
if x > 266 {
if x > 267 {
if x > 268 {
if x > 269 {
if x > 270 {
if x > 271 {
if x > 272 {
if x > 273 {
if x > 274 {
if x > 275 {
if x > 276 {
if x > 277 {
if x > 278 {
if x > 279 {
if x > 280 {
if x > 281 {
if x > 282 {
if x > 283 {
if x > 284 {
if x > 285 {
if x > 286 {
if x > 287 {
if x > 288 {
if x > 289 {
if x > 290 {
if x > 291 {
if x > 292 {
if x > 293 {
if x > 294 {
if x > 295 {
if x > 296 {
if x > 297 {
if x > 298 {
if x > 299 {
if x > 300 {
if x > 301 {
if x > 302 {
if x > 303 {
if x > 304 {
if x > 305 {
if x > 306 {
if x > 307 {
if x > 308 {
if x > 309 {
if x > 310 {
if x > 311 {
if x > 312 {
if x > 313 {
if x > 314 {
if x > 315 {
if x > 316 {
if x > 317 {
if x > 318 {
if x > 319 {
if x > 320 {
if x > 321 {
if x > 322 {
if x > 323 {
if x > 324 {
if x > 325 {
if x > 326 {
if x > 327 {
if x > 328 {
if x > 329 {
if x > 330 {
if x > 331 {
if x > 332 {
if x > 333 {
if x > 334 {
if x > 335 {
if x > 336 {
if x > 337 {
if x > 338 {
if x > 339 {
if x > 340 {
if x > 341 {
if x > 342 {
if x > 343 {
if x > 344 {
if x > 345 {
if x > 346 {
if x > 347 {
if x > 348 {
if x > 349 {
if x > 350 {
if x > 351 {
if x > 352 {
if x > 353 {
if x > 354 {
if x > 355 {
if x > 356 {
if x > 357 {
if x > 358 {
if x > 359 {
if x > 360 {
if x > 361 {
if x > 362 {
if x > 363 {
if x > 364 {
if x > 365 {
if x > 366 {
if x > 367 {
if x > 368 {
if x > 369 {
if x > 370 {
if x > 371 {
if x > 372 {
if x > 373 {
if x > 374 {
if x > 375 {
if x > 376 {
if x > 377 {
if x > 378 {
if x > 379 {
if x > 380 {
if x > 381 {
if x > 382 {
if x > 383 {
if x > 384 {
if x > 385 {
if x > 386 {
if x > 387 {
if x > 388 {
if x > 389 {
if x > 390 {
if x > 391 {
if x > 392 {
if x > 393 {
if x > 394 {
if x > 395 {
if x > 396 {
if x > 397 {
if x > 398 {
if x > 399 {
v = w.shfl_xor(v, 1);
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
}
v
}

#[test]
fn deeply_nested_kernels_compile_and_run() {
    let out = Executor::new().run(async |w: &Warp<'_>| deep(w, 500 + w.lane_id()).await).unwrap();
    assert_eq!(out[2], 503);
    let out = Executor::new().run(async |w: &Warp<'_>| deep(w, w.lane_id()).await).unwrap();
    assert_eq!(out[2], 2);
}
