def ok():
    return 1

)))) this is not python ((((
class
  {{ template }} {% for x in y %}
  ]]] def def def
=== ::: ;;;
